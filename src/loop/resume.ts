import { rm, stat } from 'node:fs/promises';
import { runDirectory, runsRoot } from '../workspace/run-workspace.js';
import { holdsRun } from '../workspace/held-runs.js';
import { sweepRunDirectories } from '../workspace/sweep.js';
import { sweepProcessTemporaries } from '../process/process-temporary.js';
import { startedUnderReview, type RunHandoff } from '../handoff/handoff.js';
import { LedgerError } from '../errors/ledger-error.js';
import type { Ledger, RunRecord, RunRow } from '../ledger/ledger.js';
import { recordsOf, type TypedRecord } from '../ledger/run-records.js';
import type { Signer } from '../ledger/seal-signature.js';
import { defineMission, missionHash, type Mission } from '../mission/mission.js';
import { EMPTY_CANDIDATE } from '../core/candidate.js';
import { commandsHoldSecrets } from '../core/redact-command.js';
import { crashedEnding, refines, type RecordedDecision } from '../run/ending.js';
import { ownerInfo } from '../ledger/owner.js';
import type { ResumeStep } from './loop-state.js';
import { RunRecorder } from '../run/run-recorder.js';
import { executeRun, type RunMissionOptions, type RunResult } from './run-mission.js';
import { sealRun, type SealPosition } from '../run/seal.js';
import { step, type StepContext } from '../state/step.js';
import { frontierOf, initialState, type WorkingState } from '../state/working-state.js';

/** Where this process finds the mission a run recorded. */
export interface MissionPlace {
  /**
   * The directory that holds the run's mission here, when it is not the recorded one (a worker on another
   * machine, which materialized the submission elsewhere): the recorded mission, checked against its
   * recorded hash, is resolved against it. Its workspace must still match the run's recorded snapshot.
   * @default the recorded directory
   */
  readonly baseDir?: string;
}

export type ResumeOptions = Omit<RunMissionOptions, 'mission' | 'ledger'> &
  MissionPlace & { readonly ledger: Ledger; readonly runId: string };

/** What recovery did with one unsealed run. */
export interface Recovery {
  readonly runId: string;
  readonly missionId: string;
  /**
   * `resumed`: this recovery resumed the run to its seal (`detail`: `outcome / stop reason`, read back
   * from the ledger); `sealed_crashed`: it sealed the run crashed (`detail`: why it did not resume it);
   * `already_sealed`: another process sealed it first (`detail`: `outcome / stop reason by another
   * process`); `skipped_live`: its process is alive; `left`: not recovered here (another mission's run,
   * or one whose process may be alive on another host).
   */
  readonly action: 'resumed' | 'sealed_crashed' | 'already_sealed' | 'skipped_live' | 'left';
  readonly detail: string;
  readonly result?: RunResult;
}

/**
 * Rebuilds the mission a run started with, at `place.baseDir` when given (the recorded mission is checked
 * against its hash where it was recorded, then moved); undefined (with why) when it is no longer available.
 */
export async function recordedMission(
  started: TypedRecord<'run.started'>,
  place: MissionPlace = {},
): Promise<{ mission: Mission } | { unavailable: string }> {
  const { baseDir, workspaceDir: _workspaceDir, ...spec } = started.data.mission;
  // A secret written into a command was recorded as `***`: the recorded command would not run as it did.
  if (commandsHoldSecrets(spec))
    return { unavailable: 'its recorded commands had secrets redacted (pass keys by environment to make a run resumable)' };
  let mission: Mission;
  try {
    mission = defineMission(spec, { ...(baseDir === undefined ? {} : { baseDir }), source: `run ${started.runId}` });
  } catch (error) {
    return { unavailable: `its mission no longer validates: ${(error as Error).message}` };
  }
  if (missionHash(mission) !== started.data.missionHash) return { unavailable: 'its mission no longer has the recorded hash' };
  if (place.baseDir !== undefined) mission = defineMission(spec, { baseDir: place.baseDir, source: `run ${started.runId}` });
  if (
    mission.workspaceDir !== undefined &&
    !(await stat(mission.workspaceDir).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
    return { unavailable: `its workspace ${mission.workspaceDir} is gone` };
  }
  return { mission };
}

/**
 * The working state of a run rebuilt from its records by the loop's own {@link step}: the baseline's
 * findings, then every recorded attempt's evidence (its candidate, findings, usage and clock) stepped over
 * with the run's step context, so the summaries, counters, frontier and windows are the ones the run
 * without the interruption has; and the step its last record leaves to do.
 * @throws {TypeError} when an attempt record lacks its evidence (a run that cannot be resumed).
 */
export function restoreState(records: readonly RunRecord[], context: StepContext): { state: WorkingState; next: ResumeStep } {
  const baseline = recordsOf(records, 'baseline')[0]?.data;
  let state: WorkingState =
    baseline === undefined
      ? initialState()
      : {
          ...initialState(),
          findings: baseline.findings,
          frontier: frontierOf(EMPTY_CANDIDATE, baseline.findings, context.required, context.promotion, undefined),
        };
  for (const { seq, data } of recordsOf(records, 'attempt')) {
    const { candidate, findings, counters } = data;
    if (candidate === undefined || findings === undefined || counters === undefined)
      throw new TypeError(`Expected attempt ${data.attempt} (record ${seq}) to record its candidate, findings and counters, got none`);
    state = step(
      state,
      { candidate, findings, usage: data.usage ?? {}, account: data.account, elapsedMs: counters.elapsedMs },
      context,
    ).state;
  }
  const last = records.filter((record) => record.type !== 'run.resumed').at(-1);
  switch (last?.type) {
    case 'baseline':
    case 'attempt':
      return { state, next: 'decide' };
    case 'decision': {
      const { verdict, decision, rejection, overridden } = last.data;
      const recorded: RecordedDecision = {
        ...(verdict === undefined ? {} : { verdict }),
        ...(decision === undefined ? {} : { decision }),
        ...(rejection === undefined ? {} : { rejection }),
        ...(overridden === undefined ? {} : { overridden }),
      };
      return { state, next: refines(recorded) ? 'attempt' : { apply: recorded } };
    }
    default:
      return { state, next: 'baseline' };
  }
}

/** Where a run's records leave it, for a seal without its mission's checks: its last attempt, or its baseline. */
function recordedPosition(records: readonly RunRecord[]): SealPosition {
  const last = recordsOf(records, 'attempt').at(-1)?.data;
  return {
    attempt: last?.attempt ?? 0,
    candidate: last?.candidate ?? EMPTY_CANDIDATE,
    findings: last?.findings ?? recordsOf(records, 'baseline')[0]?.data.findings ?? [],
    ...(last?.account === undefined ? {} : { account: last.account }),
    counters: last?.counters ?? initialState().counters,
  };
}

/**
 * Resumes an unsealed run from its recorded working state, with the same run id: the guards see the same
 * history, so they give the verdicts they would have given without the interruption.
 */
export async function resumeRun(options: ResumeOptions): Promise<RunResult> {
  const { ledger, runId, baseDir, ...rest } = options;
  const records = await ledger.records(runId);
  const started = records[0];
  if (started?.type !== 'run.started') throw new TypeError(`Expected run ${runId} to have records, got none`);
  const available = await recordedMission(started, baseDir === undefined ? {} : { baseDir });
  if ('unavailable' in available) throw new TypeError(`Expected run ${runId}'s mission to be available, but ${available.unavailable}`);
  const checkNames = (started.data.checks ?? []).map((check) => check.name);
  const handoffPlan = started.data.handoff;
  const manifestHash = started.data.workspace?.manifest;
  const inventories = recordsOf(records, 'baseline')[0]?.data.inventories;
  // The guards' window is the one the run started with.
  const lookback = started.data.lookback;
  return executeRun(
    { ...rest, mission: available.mission, ledger },
    {
      runId,
      seq: records.length,
      restore: (context) => restoreState(records, lookback === undefined ? context : { ...context, lookback }),
      checkNames,
      ...(handoffPlan === undefined ? {} : { handoffPlan }),
      underReview: startedUnderReview(started.data),
      ...(manifestHash === undefined ? {} : { manifestHash }),
      ...(inventories === undefined ? {} : { inventories }),
    },
  );
}

/**
 * Seals an unsealed run `failed_with_evidence` with stop reason `crashed`, keeping what it recorded, through
 * the loop's own seal path (`sealRun`) from where its records leave it. A run that started under review
 * (a queue's plan, or the default route) goes to that queue (`handoff`) like any unverified run, and the
 * seal records what the queue did. With a `signer`, the seal is signed with the recovering process's key.
 */
export async function sealCrashed(
  ledger: Ledger,
  records: readonly RunRecord[],
  why: string,
  now: () => number = Date.now,
  handoff?: RunHandoff,
  scratchDir?: string,
  signer?: Signer,
): Promise<void> {
  const [started] = records;
  if (started?.type !== 'run.started')
    throw new TypeError(`Expected a run that started, got ${started === undefined ? 'no records' : started.type}`);
  const { mission, handoff: plan } = started.data;
  const { runId } = started;
  await sealRun({
    runId,
    ending: crashedEnding({ lastSeq: records.length - 1, why }),
    verification: 'unverified',
    position: recordedPosition(records),
    mission: {
      goal: String(mission.goal ?? ''),
      taskType: String(mission.taskType ?? 'default'),
      priority: Number(mission.priority ?? 0),
      stripPatterns: mission.brief?.stripPatterns,
    },
    handoff: handoff === undefined || !startedUnderReview(started.data) ? undefined : { handoff, plan },
    append: async (data) => {
      // Recovery signs with its own key, over the run row's last hash: if a record landed after `records` were read, the append fails on its seq.
      const lastHash = signer === undefined ? undefined : (await ledger.runs({ runId }))[0]?.lastHash;
      await new RunRecorder({ ledger, runId, seq: records.length, signer, now, ...(lastHash === undefined ? {} : { lastHash }) }).seal(
        data,
      );
    },
  });
  // The run will not go on: its snapshot and copies are of no more use.
  await rm(runDirectory(runId, scratchDir), { recursive: true, force: true });
}

/**
 * Whether the process that last owned a run is alive: knowable only on the same host. A run of this
 * process is alive while this process holds it (`holdRun`), else it was left by an earlier crash.
 */
function ownerState(runId: string, records: readonly RunRecord[]): 'alive' | 'dead' | { unknown: string } {
  const owner = records
    .flatMap((record) => (record.type === 'run.started' || record.type === 'run.resumed' ? [record.data.owner] : []))
    .at(-1);
  if (owner?.pid === undefined) return { unknown: 'it records no owner process' };
  if (owner.host !== ownerInfo().host) return { unknown: `its process ran on host ${String(owner.host)}, where it may still be alive` };
  if (owner.pid === process.pid) return holdsRun(runId) ? 'alive' : 'dead';
  try {
    process.kill(owner.pid, 0);
    return 'alive';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? 'alive' : 'dead';
  }
}

/** How often recovery reads a run again after its write lost a race, before it gives up. */
const RECOVERY_TRIES = 5;

/** A write refused because the run moved on after recovery read it: a record appended or a seal. */
const lostRace = (error: unknown): boolean =>
  error instanceof LedgerError && (error.code === 'ledger.out_of_order' || error.code === 'ledger.sealed');

export interface RecoverOptions extends Omit<RunMissionOptions, 'mission' | 'ledger'>, MissionPlace {
  readonly ledger: Ledger;
  /** Resume runs whose mission and proposer are available; otherwise seal every one crashed. @default true */
  readonly resume?: boolean;
  /** Only runs of this mission; the others are `left`. @default every mission */
  readonly missionId?: string;
  /** Only this run (a worker taking over a submission whose worker died). @default every unsealed run */
  readonly runId?: string;
  /**
   * Only runs whose process is known to be dead (it ran on this host); a run whose process ran on
   * another host, or is not recorded, is `left`. @default false: such runs are recovered too
   */
  readonly knownDeadOnly?: boolean;
}

/** A run another process sealed before recovery could: what it reports, from the seal record. */
const alreadySealed = (run: RunRow, seal: TypedRecord<'run.sealed'>): Recovery => ({
  runId: run.runId,
  missionId: run.missionId,
  action: 'already_sealed',
  detail: `${seal.data.outcome} / ${seal.data.stopReason} by another process`,
});

/** How a resumed run ended, as the ledger holds it now: `outcome / stop reason`. */
async function sealedAs(ledger: Ledger, runId: string): Promise<string> {
  const [row] = await ledger.runs({ runId });
  return row?.sealed === true ? `${String(row.outcome)} / ${String(row.stopReason)}` : 'still unsealed';
}

/**
 * Recovers one unsealed run from a fresh read of its records. The process that wrote it may have a last
 * statement in flight that commits after this read (a killed client does not stop its server-side
 * statement): a write refused for that reason reads the run again and decides again, a bounded number
 * of times. The outcome is read back from the ledger after acting, so what is reported is what is stored.
 */
async function recoverRun(
  { ledger, resume = true, missionId, knownDeadOnly = false, runId: _only, ...rest }: RecoverOptions,
  run: RunRow,
): Promise<Recovery> {
  const { runId } = run;
  const left = (detail: string): Recovery => ({ runId, missionId: run.missionId, action: 'left', detail });
  const live: Recovery = { runId, missionId: run.missionId, action: 'skipped_live', detail: 'the process running it is alive' };
  if (missionId !== undefined && run.missionId !== missionId) {
    // Another mission's run that is running (in this process, say, beside this one) is not left for anyone.
    return ownerState(runId, await ledger.records(runId)) === 'alive' ? live : left(`a run of mission ${run.missionId}`);
  }
  for (let tries = 1; ; tries += 1) {
    const records = await ledger.records(runId);
    const last = records.at(-1);
    if (last?.type === 'run.sealed') return alreadySealed(run, last);
    const owner = ownerState(runId, records);
    if (owner === 'alive') return live;
    if (owner !== 'dead' && knownDeadOnly) return left(owner.unknown);
    try {
      return await recoverRecords({ ...rest, ledger, resume }, run, records);
    } catch (error) {
      if (!lostRace(error) || tries >= RECOVERY_TRIES) throw error;
    }
  }
}

/** Resumes or seals a run from the records just read; throws a lost race for {@link recoverRun} to retry. */
async function recoverRecords(
  { ledger, resume, ...rest }: Omit<RecoverOptions, 'missionId' | 'knownDeadOnly'> & { resume: boolean },
  run: RunRow,
  records: readonly RunRecord[],
): Promise<Recovery> {
  const { runId, missionId } = run;
  const [started] = records;
  const available =
    started?.type === 'run.started'
      ? await recordedMission(started, rest.baseDir === undefined ? {} : { baseDir: rest.baseDir })
      : { unavailable: 'it has no run.started record' };
  const why =
    'unavailable' in available
      ? available.unavailable
      : !resume
        ? 'resuming was not asked for'
        : available.mission.proposer === undefined && rest.proposer === undefined
          ? 'its proposer cannot be rebuilt (it was not declared in the mission)'
          : undefined;
  if (why !== undefined) {
    await sealCrashed(ledger, records, `not resumed: ${why}`, Date.now, rest.handoff, rest.scratchDir, rest.signer);
    return { runId, missionId, action: 'sealed_crashed', detail: why };
  }
  let result: RunResult;
  try {
    result = await resumeRun({ ...rest, ledger, runId });
  } catch (error) {
    // A resumed run writes `run.resumed` first: a lost race there changed nothing, so it is decided again.
    if (lostRace(error)) throw error;
    const fresh = await ledger.records(runId);
    const last = fresh.at(-1);
    if (last?.type === 'run.sealed') return alreadySealed(run, last);
    await sealCrashed(ledger, fresh, `resuming failed: ${(error as Error).message}`, Date.now, rest.handoff, rest.scratchDir, rest.signer);
    return { runId, missionId, action: 'sealed_crashed', detail: `resuming failed: ${(error as Error).message}` };
  }
  return { runId, missionId, action: 'resumed', detail: await sealedAs(ledger, runId), result };
}

/**
 * Finds the unsealed runs and, for each whose process is gone, resumes it when its mission (with a
 * proposer it can rebuild) is still available, else seals it `failed_with_evidence` / `crashed`.
 * `missionId` and `knownDeadOnly` narrow what is recovered; every unsealed run gets one {@link Recovery}.
 */
export async function recoverRuns(options: RecoverOptions): Promise<Recovery[]> {
  const { ledger, scratchDir } = options;
  const recoveries: Recovery[] = [];
  const only = options.runId === undefined ? {} : { runId: options.runId };
  for (const run of await ledger.runs({ unsealed: true, ...only })) recoveries.push(await recoverRun(options, run));
  // What crashed processes left in the temp folder and the scratch directory: their runs are sealed now, or never started.
  await sweepProcessTemporaries();
  await sweepRunDirectories({
    root: runsRoot(scratchDir),
    runState: async (runId) => {
      const [run] = await ledger.runs({ runId });
      return run === undefined ? 'unknown' : run.sealed ? 'sealed' : 'unsealed';
    },
  });
  return recoveries;
}
