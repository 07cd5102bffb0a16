import { StopReason, type Outcome } from '../core/outcome.js';
import type { DecisionRecordData } from '../ledger/run-records.js';

/** A decision as recorded: what the judge chose or why it was refused, the stop verdict it saw, and whether that verdict overrode it. */
export type RecordedDecision = Pick<DecisionRecordData, 'verdict' | 'decision' | 'rejection' | 'overridden'>;

/** How a run ends: what its seal records. */
export interface Ending {
  readonly outcome: Outcome;
  /** The stable stop-reason code. */
  readonly stopReason: string;
  readonly detail: string;
  /** The guard (or judge) whose verdict ended the run, if one did. */
  readonly guard?: string;
}

/** Whether a decision refines the candidate: the judge chose `retry` and no binding stop verdict overrode it. */
export function refines(decided: RecordedDecision): boolean {
  return decided.decision?.transition === 'retry' && decided.overridden !== true;
}

const ending = (outcome: Outcome, stopReason: string, detail: string, guard?: string): Ending => ({
  outcome,
  stopReason,
  detail,
  ...(guard === undefined ? {} : { guard }),
});

/**
 * The ending a decision that does not refine (see {@link refines}) gives the run: a refused decision ends it
 * per the mission's `stopPolicy.onRejectedDecision`; a binding stop verdict (a judge cannot retry past a
 * breaker) by the verdict; otherwise the judge's transition, its reason the stop reason.
 * @throws {TypeError} for a decision that refines.
 */
export function endingOf(
  decided: RecordedDecision,
  { onRejectedDecision, judge }: { onRejectedDecision: 'block' | 'fail'; judge: string },
): Ending {
  const { verdict, decision, rejection, overridden } = decided;
  if (rejection !== undefined)
    return ending(
      onRejectedDecision === 'block' ? 'blocked' : 'failed_with_evidence',
      StopReason.invalidDecision,
      `${rejection.code}: ${rejection.message}`,
      judge,
    );
  if (overridden === true && verdict !== undefined) return ending(verdict.outcome, verdict.reason, verdict.detail, verdict.guard);
  switch (decision?.transition) {
    case 'accept':
      return ending('complete', decision.reason, decision.detail ?? '', verdict?.outcome === 'complete' ? verdict.guard : undefined);
    case 'noop':
      return ending('complete_noop', decision.reason, decision.detail ?? '');
    case 'block':
      return ending('blocked', decision.reason, decision.detail ?? '', verdict?.guard);
    case 'fail':
      return ending('failed_with_evidence', decision.reason, decision.detail ?? '', verdict?.guard);
    default:
      throw new TypeError(`Expected a decision that ends the run, got ${decision === undefined ? 'none' : decision.transition}`);
  }
}

/**
 * The ending of a run stopped while a proposer, check or judge ran, or between its steps: its wall-clock
 * budget ran out (`wallClockMs`, the budget), or its caller's signal fired (`wallClockMs` undefined).
 * `during`: the stop cut `attempt` off; otherwise it came after it (before the first, for attempt 0).
 */
export function stoppedEnding({
  wallClockMs,
  attempt,
  during = true,
}: {
  wallClockMs: number | undefined;
  attempt: number;
  during?: boolean;
}): Ending {
  const when = during ? `during attempt ${attempt}` : attempt === 0 ? 'before the first attempt' : `after attempt ${attempt}`;
  return wallClockMs !== undefined
    ? ending('failed_with_evidence', StopReason.budgetWallClock, `the ${wallClockMs} ms wall-clock budget ran out ${when}`, 'wallClock')
    : ending('failed_with_evidence', StopReason.aborted, `the run was stopped by its caller ${when}`);
}

/** The ending of a run whose runtime threw: sealed with the evidence gathered so far. */
export function runtimeErrorEnding({ error, attempt }: { error: unknown; attempt: number }): Ending {
  return ending('failed_with_evidence', StopReason.runtimeError, `attempt ${attempt}: ${(error as Error)?.message ?? String(error)}`);
}

/** The ending recovery gives a run whose process stopped and that is not resumed. */
export function crashedEnding({ lastSeq, why }: { lastSeq: number; why: string }): Ending {
  return ending('failed_with_evidence', StopReason.crashed, `the process running this run stopped after record ${lastSeq}; ${why}`);
}
