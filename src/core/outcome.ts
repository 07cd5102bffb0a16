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
  scopeViolation: 'scope_violation',
  approvalMissing: 'approval_missing',
  invalidDecision: 'invalid_decision',
  /** The caller's abort signal stopped the run. */
  aborted: 'aborted',
  /** The wall-clock budget ran out while a proposer, check or judge was running (or between attempts, by the guard). */
  budgetWallClock: 'budget_wall_clock',
  /** The runtime itself threw during an attempt. */
  runtimeError: 'runtime_error',
  /** The process running the run died; recovery sealed it. */
  crashed: 'crashed',
  /**
   * A required check could not run on the baseline (program missing or not executable, its own timeout, no
   * report), or the proposer failed on its environment (an agent preset's endpoint out of reach, its key
   * refused): an outside repair is needed.
   */
  environment: 'environment',
  /** A required check examines what no candidate in the scope can change, and it fails on the baseline. */
  unreachable: 'unreachable',
  /** The proposer changed nothing in attempts in a row (the runtime's `noChange` guard). */
  noChange: 'no_change',
  /**
   * Every check passed, but none of them is a demand check and no score rule stopped: format checks (a
   * schema, an exit 0) say nothing about whether the task is done, so more attempts cannot earn more evidence.
   */
  noDemandSignal: 'no_demand_signal',
  /** A human judge approved the attempt through the review queue. */
  humanApproved: 'human_approved',
  /** A human judge rejected the attempt through the review queue (the run retries or fails, per `onReject`). */
  humanRejected: 'human_rejected',
  /** A human judge gave no verdict within its timeout: the run blocks. */
  humanTimeout: 'human_timeout',
  /** The review queue dropped a human judge's request at capacity, so no one can give the verdict: the run blocks. */
  humanUnavailable: 'human_unavailable',
} as const;
