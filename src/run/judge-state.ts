import { evaluateAcceptance } from '../core/acceptance.js';
import type { Check } from '../core/check.js';
import type { StopVerdict } from '../guards/guard.js';
import type { Judge } from '../judge/judge.js';
import type { Ledger } from '../ledger/ledger.js';
import { missionHash, type Mission } from '../mission/mission.js';
import type { WorkingState } from '../state/working-state.js';
import type { TraceSpan } from '../telemetry/trace-span.js';
import { askJudge } from './ask-judge.js';
import { endingOf, type Ending, type RecordedDecision } from './ending.js';
import type { RunRecorder } from './run-recorder.js';
import { judgeSpan, traceDecision } from './run-trace.js';

/** What asking the judge on a run's working state reads: the loop's context, or the AI SDK adapter's. */
export interface Deciding {
  readonly mission: Mission;
  /** The hash of the mission the run started with: acceptance needs it unchanged. */
  readonly missionHash: string;
  readonly judge: Judge;
  readonly checks: readonly Check[];
  readonly approvals: readonly string[];
  readonly ledger: Ledger;
  readonly recorder: RunRecorder;
  readonly signal: AbortSignal;
}

/**
 * Evaluates acceptance on the working state, asks the judge on the evidence (with the stop verdict) in a
 * child span of `trace`, and records its validated decision.
 */
export async function judgeState(
  deciding: Deciding,
  working: WorkingState,
  verdict: StopVerdict | undefined,
  trace: TraceSpan,
): Promise<RecordedDecision> {
  const { mission, judge, recorder } = deciding;
  const head = await deciding.ledger.head(recorder.runId);
  const acceptance = evaluateAcceptance({
    checks: deciding.checks,
    findings: working.findings,
    approvalsRequired: mission.approvals,
    approvalsGiven: deciding.approvals,
    missionUnchanged: () => missionHash(mission) === deciding.missionHash,
    recordsAgree: head.count === recorder.seq && !head.sealed,
  });
  const evidence = {
    mission,
    attempt: working.attempt,
    candidate: working.candidate,
    findings: working.findings,
    acceptance,
    ...(verdict === undefined ? {} : { verdict }),
  };
  const decided = await trace.child(judgeSpan(judge), async (judgeTrace) => {
    const answer = await askJudge({ judge, evidence, signal: deciding.signal, runId: recorder.runId });
    if (judgeTrace.recording) traceDecision(judgeTrace, answer);
    return answer;
  });
  await recorder.append({
    type: 'decision',
    data: {
      attempt: working.attempt,
      ...decided,
      acceptance,
      state: { counters: working.counters, frontier: working.frontier, recentAttempts: working.recent.map((summary) => summary.attempt) },
    },
  });
  return decided;
}

/**
 * How a decision that does not refine ends the run: a refused decision per the mission's
 * `stopPolicy.onRejectedDecision`, a binding stop verdict by the verdict, otherwise the judge's transition.
 */
export function ended(deciding: Pick<Deciding, 'mission' | 'judge'>, decided: RecordedDecision): Ending {
  return endingOf(decided, { onRejectedDecision: deciding.mission.stopPolicy.onRejectedDecision, judge: deciding.judge.name });
}
