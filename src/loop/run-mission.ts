import { randomUUID } from 'node:crypto';
import { StopReason } from '../core/outcome.js';
import { LedgerError } from '../errors/ledger-error.js';
import { setLongTimeout } from '../process/long-timeout.js';
import { startTrace } from '../telemetry/start-trace.js';
import type { TraceSpan } from '../telemetry/trace-span.js';
import { holdRun } from '../workspace/held-runs.js';
import { Aborted } from '../run/abort.js';
import { attempt } from './attempt.js';
import { runtimeErrorEnding, stoppedEnding } from '../run/ending.js';
import type { ResumePoint } from './loop-state.js';
import { openRun, recordStart, type Stand } from './open-run.js';
import { prepareRun } from './prepare-run.js';
import type { PreparedRun, RunContext } from './run-context.js';
import type { RunMissionOptions, RunResult } from './run-options.js';
import { RunRecorder } from '../run/run-recorder.js';
import { runSpan } from '../run/run-trace.js';
import { sealLoop } from './seal-loop.js';
import { StoppedAt } from './stopped-at.js';

export type { RunMissionOptions, RunResult } from './run-options.js';
export type { ResumePoint, ResumeStep } from './loop-state.js';

/**
 * Runs one mission: Propose → Check → Decide → (Refine | Seal), until a transition seals the run.
 * The user's workspace is never modified; every event goes to the ledger.
 * @throws {MissionError} before anything is recorded, when the mission cannot run as given.
 * @throws {LinkError} before anything is recorded, when `resolves` names a run this one cannot resolve.
 * @throws {SamePlanError} before anything is recorded, when the same plan thrashed on this mission before.
 */
export function runMission(options: RunMissionOptions): Promise<RunResult> {
  return executeRun(options);
}

/**
 * The loop, for a new run or one resumed from its records, in the run's span (when tracing is on): the span
 * ends however the run does, failed when it throws.
 */
export async function executeRun(options: RunMissionOptions, resume?: ResumePoint): Promise<RunResult> {
  const runId = resume?.runId ?? options.runId ?? options._internal?.generateId?.() ?? randomUUID();
  // Held while it runs: recovery in this process (many runs at once) tells it from a crashed run.
  const release = holdRun(runId);
  const span = await startTrace({ tracer: options.tracer, ...runSpan(options.mission.id, resume?.seq) });
  span.set({ 'redline.run.id': runId, 'gen_ai.conversation.id': runId });
  try {
    return await loop(withClock(options, span, await prepareRun(options, runId, resume)));
  } catch (error) {
    span.failWith(error);
    throw error;
  } finally {
    span.end();
    release();
  }
}

/** The prepared run with its recorder, and the wall-clock budget enforced while a proposer, check or judge runs. */
function withClock(options: RunMissionOptions, span: TraceSpan, prepared: PreparedRun): RunContext {
  const now = options._internal?.now ?? Date.now;
  const { limits, startedAt } = prepared;
  const wallClock = new AbortController();
  const timer =
    limits.maxWallClockMs === undefined
      ? undefined
      : setLongTimeout({
          delayMs: limits.maxWallClockMs - (now() - startedAt),
          onTimeout: () => wallClock.abort(StopReason.budgetWallClock),
        });
  const recorder = new RunRecorder({
    ledger: prepared.ledger,
    runId: prepared.runId,
    seq: prepared.resumedFrom ?? 0,
    signer: options.signer,
    now,
    onRecord: options.onRecord,
  });
  const signal = options.signal === undefined ? wallClock.signal : AbortSignal.any([wallClock.signal, options.signal]);
  return { ...prepared, options, recorder, now, span, signal, wallClock: wallClock.signal, timer };
}

/**
 * Records the start, opens the run (the baseline, or the step a resumed run's records left to do), then
 * attempts until a decision ends it, and seals it. The state goes explicitly from step to step; a step
 * cut off by a stop or an error hands where it stood to the seal.
 */
async function loop(context: RunContext): Promise<RunResult> {
  const { recorder, files, start } = context;
  try {
    await recordStart(context);
    files?.markRecorded();
    let stand: Stand = await openRun(context, start.state, start.next);
    // Attempt while the last decision refines: the judge chose `retry` and no binding stop verdict (budget,
    // thrash, human gate) overrode it. Every other transition — accept, noop, block, fail, a refused decision — ends the run.
    while (stand.ending === undefined) stand = await attempt(context, stand.state);
    const { state, ending } = stand;
    return await sealLoop(context, state, ending).catch((error: unknown) => {
      throw new StoppedAt(state, error);
    });
  } catch (thrown) {
    const { state, cause, underWay } = thrown instanceof StoppedAt ? thrown : { state: start.state, cause: thrown, underWay: undefined };
    const at = underWay ?? { attempt: state.working.attempt, candidate: state.working.candidate };
    // Awaited here, so the `finally` below sees the seal: a run stopped or broken is sealed too, and its directory removed.
    if (cause instanceof Aborted)
      return await sealLoop(
        context,
        state,
        stoppedEnding({
          wallClockMs: context.wallClock.aborted ? context.limits.maxWallClockMs : undefined,
          attempt: at.attempt,
          during: underWay !== undefined,
        }),
        at,
      );
    // Whatever broke, the run is sealed with the evidence gathered so far; only a ledger that cannot be written rethrows.
    if (cause instanceof LedgerError || recorder.seq === 0) throw cause;
    return await sealLoop(context, state, runtimeErrorEnding({ error: cause, attempt: at.attempt }), at);
  } finally {
    context.timer?.clear();
    // An unsealed run (the ledger failed) keeps its snapshot for recovery to resume from.
    if (recorder.sealed) await files?.dispose();
    else await files?.close();
  }
}
