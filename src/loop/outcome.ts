/** How a sealed run ended. */
export type Outcome = 'complete' | 'complete_noop' | 'blocked' | 'failed_with_evidence';

/**
 * What the evidence behind a sealed run is worth: `verified` (all required demand red lines passed),
 * `sampled` (accepted on format/semantic evidence only), `unverified` (no objective signal).
 */
export type Verification = 'verified' | 'sampled' | 'unverified';

export const OUTCOMES: readonly Outcome[] = ['complete', 'complete_noop', 'blocked', 'failed_with_evidence'];

/** Stable stop-reason codes of the runtime's own transitions; guards add their own codes. */
export const StopReason = {
  demandPassed: 'demand_passed',
  baselinePassed: 'baseline_passed',
  scoreAccepted: 'score_accepted',
  scopeViolation: 'scope_violation',
  approvalMissing: 'approval_missing',
  invalidDecision: 'invalid_decision',
  judgeBlocked: 'judge_blocked',
  judgeFailed: 'judge_failed',
  aborted: 'aborted',
} as const;
