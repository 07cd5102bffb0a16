import { rm, stat } from 'node:fs/promises';
import { runDirectory, runsRoot } from '../workspace/run-workspace.js';
import { sweepRunDirectories } from '../workspace/sweep.js';
import type { Finding } from '../checks/finding.js';
import { handOff, reportRun, type Handoff, type HandoffPlan } from '../handoff/handoff.js';
import type { AttemptSummary, RunCounters } from '../guards/guard.js';
import type { Ledger, LedgerRecord, RunRow } from '../ledger/ledger.js';
import { signSeal, type Signer } from '../ledger/seal-signature.js';
import { defineMission, missionHash, type Mission } from '../mission/mission.js';
import { lastError, makeBrief } from './brief.js';
import { EMPTY_CANDIDATE, type Candidate } from './candidate.js';
import { StopReason } from './outcome.js';
import type { Frontier } from './progress.js';
import { executeRun, initialState, ownerInfo, type RecordedDecision, type ResumePoint, type RunMissionOptions, type RunResult, type WorkingState } from './run-mission.js';

/** How many state signatures the proposer sees (as in the loop). */
const SIGNATURES_SHOWN = 8;

export type ResumeOptions = Omit<RunMissionOptions, 'mission' | 'ledger'> & { readonly ledger: Ledger; readonly runId: string };

/** What recovery did with one unsealed run. */
export interface Recovery {
  readonly runId: string;
  readonly action: 'resumed' | 'sealed_crashed' | 'skipped_live';
  readonly detail: string;
  readonly result?: RunResult;
}

/** Rebuilds the mission a run started with; undefined (with why) when it is no longer available. */
export async function recordedMission(started: LedgerRecord): Promise<{ mission: Mission } | { unavailable: string }> {
  const { baseDir, workspaceDir: _workspaceDir, ...spec } = started.data.mission as Record<string, unknown> & { baseDir: string; workspaceDir?: string };
  let mission: Mission;
  try {
    mission = defineMission(spec, { baseDir, source: `run ${started.runId}` });
  } catch (error) {
    return { unavailable: `its mission no longer validates: ${(error as Error).message}` };
  }
  if (missionHash(mission) !== started.data.missionHash) return { unavailable: 'its mission no longer has the recorded hash' };
  if (mission.workspaceDir !== undefined && !(await stat(mission.workspaceDir).then((info) => info.isDirectory(), () => false))) {
    return { unavailable: `its workspace ${mission.workspaceDir} is gone` };
  }
  return { mission };
}

/** The working state and next step of a run, from its records alone. */
export function restoreState(records: readonly LedgerRecord[], lookback: number): { state: WorkingState; next: ResumePoint['next'] } {
  const attempts = records.filter((record) => record.type === 'attempt');
  const lastAttempt = attempts.at(-1)?.data;
  const baseline = records.find((record) => record.type === 'baseline')?.data;
  const fresh = initialState();
  const state: WorkingState = {
    attempt: (lastAttempt?.attempt as number | undefined) ?? 0,
    candidate: (lastAttempt?.candidate as Candidate | undefined) ?? EMPTY_CANDIDATE,
    findings: (lastAttempt?.findings ?? baseline?.findings ?? []) as Finding[],
    counters: (lastAttempt?.counters as RunCounters | undefined) ?? fresh.counters,
    recent: attempts.slice(-lookback).map((record) => record.data.summary as AttemptSummary),
    signatures: attempts.slice(-SIGNATURES_SHOWN).map((record) => (record.data.summary as AttemptSummary).signature),
    frontier: ((lastAttempt ?? baseline)?.frontier as Frontier | undefined) ?? fresh.frontier,
  };
  const last = records.filter((record) => record.type !== 'run.resumed').at(-1);
  switch (last?.type) {
    case 'baseline':
    case 'attempt':
      return { state, next: 'decide' };
    case 'decision': {
      const { verdict, decision, rejection, overridden } = last.data as RecordedDecision;
      const recorded: RecordedDecision = { ...(verdict === undefined ? {} : { verdict }), ...(decision === undefined ? {} : { decision }), ...(rejection === undefined ? {} : { rejection }), ...(overridden === undefined ? {} : { overridden }) };
      return { state, next: decision?.transition === 'retry' && overridden !== true ? 'attempt' : { apply: recorded } };
    }
    default:
      return { state, next: 'baseline' };
  }
}

/**
 * Resumes an unsealed run from its recorded working state, with the same run id: the guards see the same
 * history, so they give the verdicts they would have given without the interruption.
 */
export async function resumeRun(options: ResumeOptions): Promise<RunResult> {
  const { ledger, runId, ...rest } = options;
  const records = await ledger.records(runId);
  const started = records[0];
  if (started?.type !== 'run.started') throw new TypeError(`Expected run ${runId} to have records, got none`);
  const available = await recordedMission(started);
  if ('unavailable' in available) throw new TypeError(`Expected run ${runId}'s mission to be available, but ${available.unavailable}`);
  const lookback = (started.data.lookback as number | undefined) ?? records.length;
  const { state, next } = restoreState(records, lookback);
  const checkNames = (started.data.checks as { name: string }[]).map((check) => check.name);
  const handoffPlan = started.data.handoff as HandoffPlan | undefined;
  const manifestHash = (started.data.workspace as { manifest?: string } | undefined)?.manifest;
  return executeRun(
    { ...rest, mission: available.mission, ledger },
    { runId, seq: records.length, state, next, checkNames, ...(handoffPlan === undefined ? {} : { handoffPlan }), ...(manifestHash === undefined ? {} : { manifestHash }) },
  );
}

/**
 * Seals an unsealed run `failed_with_evidence` with stop reason `crashed`, keeping what it recorded. A run
 * that started under a review queue's plan goes to that queue (`handoff`) like any unverified run, and the
 * seal records what the queue did. With a `signer`, the seal is signed with the recovering process's key.
 */
export async function sealCrashed(ledger: Ledger, records: readonly LedgerRecord[], why: string, now: () => number = Date.now, handoff?: Handoff, scratchDir?: string, signer?: Signer): Promise<void> {
  const started = records[0] as LedgerRecord;
  const mission = started.data.mission as { goal?: string; priority?: number };
  const { state } = restoreState(records, 0);
  const detail = `the process running this run stopped after record ${records.length - 1}; ${why}`;
  const brief = makeBrief({ runId: started.runId, task: String(mission.goal ?? ''), priority: Number(mission.priority ?? 0), candidate: state.candidate, cutoffReason: `crashed: ${detail}`, attempts: state.attempt, verification: 'unverified', ...(lastError(state.findings) === undefined ? {} : { lastError: lastError(state.findings) as string }) });
  const plan = started.data.handoff as HandoffPlan | undefined;
  const queued = handoff === undefined || plan === undefined ? undefined : await handOff(handoff, { runId: started.runId, outcome: 'failed_with_evidence', verification: 'unverified', stopReason: StopReason.crashed, brief }, plan);
  const seal: LedgerRecord = {
    runId: started.runId,
    seq: records.length,
    type: 'run.sealed',
    at: now(),
    data: { outcome: 'failed_with_evidence', verification: 'unverified', stopReason: StopReason.crashed, detail, attempts: state.attempt, candidateHash: state.candidate.hash, counters: state.counters, brief, ...(queued === undefined ? {} : { handoff: queued }) },
  };
  // Recovery signs with its own key, over the run row's last hash: if a record landed after `records` were read, the append fails on its seq.
  const prevHash = signer === undefined ? undefined : (await ledger.runs({ runId: started.runId }))[0]?.lastHash;
  await ledger.append(signer === undefined || prevHash === undefined ? seal : signSeal({ signer, prevHash, seal }));
  if (handoff !== undefined && plan !== undefined) await reportRun(handoff, { runId: started.runId, stopReason: StopReason.crashed });
  // The run will not go on: its snapshot and copies are of no more use.
  await rm(runDirectory(started.runId, scratchDir), { recursive: true, force: true });
}

/** Whether the process that last owned a run is still alive (only knowable on the same host). */
function ownerAlive(records: readonly LedgerRecord[]): boolean {
  const owner = records.filter((record) => record.type === 'run.started' || record.type === 'run.resumed').at(-1)?.data.owner as { host?: string; pid?: number } | undefined;
  if (owner?.pid === undefined || owner.host !== ownerInfo().host || owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Finds every unsealed run whose process is gone and resumes it when its mission (with a proposer it
 * can rebuild) is still available, else seals it `failed_with_evidence` / `crashed`.
 */
export async function recoverRuns({ ledger, resume = true, ...rest }: Omit<RunMissionOptions, 'mission' | 'ledger'> & { ledger: Ledger; resume?: boolean }): Promise<Recovery[]> {
  const recoveries: Recovery[] = [];
  for (const run of (await ledger.runs({ unsealed: true })) as RunRow[]) {
    const records = await ledger.records(run.runId);
    if (ownerAlive(records)) {
      recoveries.push({ runId: run.runId, action: 'skipped_live', detail: 'the process running it is alive' });
      continue;
    }
    const available = await recordedMission(records[0] as LedgerRecord);
    const why = 'unavailable' in available ? available.unavailable : !resume ? 'resuming was not asked for' : available.mission.proposer === undefined && rest.proposer === undefined ? 'its proposer cannot be rebuilt (it was not declared in the mission)' : undefined;
    if (why !== undefined) {
      await sealCrashed(ledger, records, `not resumed: ${why}`, Date.now, rest.handoff, rest.scratchDir, rest.signer);
      recoveries.push({ runId: run.runId, action: 'sealed_crashed', detail: why });
      continue;
    }
    try {
      const result = await resumeRun({ ...rest, ledger, runId: run.runId });
      recoveries.push({ runId: run.runId, action: 'resumed', detail: `${result.outcome} / ${result.stopReason}`, result });
    } catch (error) {
      const fresh = await ledger.records(run.runId);
      if (fresh.at(-1)?.type !== 'run.sealed') await sealCrashed(ledger, fresh, `resuming failed: ${(error as Error).message}`, Date.now, rest.handoff, rest.scratchDir, rest.signer);
      recoveries.push({ runId: run.runId, action: 'sealed_crashed', detail: `resuming failed: ${(error as Error).message}` });
    }
  }
  // What crashed processes left in the scratch directory: their runs are sealed now, or never started.
  await sweepRunDirectories({
    root: runsRoot(rest.scratchDir),
    runState: async (runId) => {
      const [run] = await ledger.runs({ runId });
      return run === undefined ? 'unknown' : run.sealed ? 'sealed' : 'unsealed';
    },
  });
  return recoveries;
}
