import type { AttemptSummary } from '../guards/guard.js';
import type { AttemptData } from '../ledger/run-records.js';
import type { AttemptEvidence } from '../state/step.js';
import type { WorkingState } from '../state/working-state.js';

/**
 * The `attempt` record of one stepped attempt: its number, candidate, what it spent (when it reported
 * anything), findings and summary, the working state's counters and frontier after it, how the check copy
 * was reset (the loop's, when it reset one) and the proposer's account (when its program gave one).
 * The loop and the AI SDK adapter both record through here, so an attempt is recorded key for key the
 * same whichever drives the run (the chain hashes its bytes).
 */
export function attemptRecord({
  evidence,
  stepped,
  isolation,
}: {
  /** What the attempt was stepped with. */
  evidence: AttemptEvidence;
  /** What the step gave. */
  stepped: { readonly state: WorkingState; readonly summary: AttemptSummary };
  /** What resetting the check copy cost (`resetMs`, paths scanned, hashed, restored), when the loop reset one. */
  isolation?: Readonly<Record<string, number>> | undefined;
}): { readonly type: 'attempt'; readonly data: AttemptData } {
  const { candidate, findings, usage, account } = evidence;
  return {
    type: 'attempt',
    data: {
      attempt: stepped.summary.attempt,
      candidate,
      ...(Object.keys(usage).length === 0 ? {} : { usage }),
      findings,
      summary: stepped.summary,
      counters: stepped.state.counters,
      frontier: stepped.state.frontier,
      ...(isolation === undefined ? {} : { isolation }),
      ...(account === undefined ? {} : { account }),
    },
  };
}
