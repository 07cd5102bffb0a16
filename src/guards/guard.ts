import type { Outcome } from '../core/outcome.js';

/**
 * The summary of one attempt that guards read. The runtime keeps only the most recent
 * `lookback` of these (the largest any guard of the policy asks for), so history stays bounded.
 */
export interface AttemptSummary {
  /** 1-based attempt number. */
  readonly attempt: number;
  /** Normalized content hash of the candidate (its fingerprint). */
  readonly candidateHash: string;
  /** Hash of candidate, check plan, completed-check set and sorted failing reason codes. */
  readonly signature: string;
  /** Hash of the sorted failing reason codes: what the checks rejected, `''` when nothing failed. */
  readonly rejection: string;
  /** The semantic score of this attempt, when a score check ran. */
  readonly score?: number;
  /** Number of failing reason codes over required checks. */
  readonly failing: number;
  /** Whether a required check failed. */
  readonly failed: boolean;
  /** Whether an infrastructure error (check status `error`) occurred: such attempts are not stuck-loop evidence. */
  readonly infraError: boolean;
  /** Whether this attempt made progress (`madeProgress`, src/state/progress.ts). */
  readonly progress: boolean;
  /**
   * Whether the proposal left the candidate as it was (`proposer.no_change`): no check ran, the state did
   * not move. Absent on every other attempt.
   */
  readonly noChange?: true;
  /**
   * Whether the proposer failed on its environment (`proposer.environment`: an agent whose model endpoint
   * was out of reach or refused its key), which every attempt would meet again. Absent on every other attempt.
   */
  readonly environment?: true;
}

/** Counters that live in the run record, so that a resumed run gives the same verdicts. */
export interface RunCounters {
  readonly attempts: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  /** Milliseconds since the run started, by the run's clock. */
  readonly elapsedMs: number;
  /** Attempts in a row (ignoring infrastructure errors) without progress. */
  readonly sinceProgress: number;
  /** Attempts whose required checks failed. */
  readonly failedRounds: number;
}

export interface BudgetLimits {
  readonly maxAttempts: number;
  readonly maxTokens?: number;
  readonly maxWallClockMs?: number;
  readonly maxCostUsd?: number;
}

/** Everything a guard may read. */
export interface GuardInput {
  /** The most recent attempts, oldest first; the last one is the attempt just checked. */
  readonly recent: readonly AttemptSummary[];
  readonly counters: RunCounters;
  readonly budgets: BudgetLimits;
  readonly progressWindow: number;
  readonly taskType: string;
}

/** A guard's decision to stop. */
export interface StopVerdict {
  /** Name of the guard that produced the verdict, e.g. `confirm(2, 0.8)`. */
  readonly guard: string;
  /** Stable stop-reason code, e.g. `budget_attempts`. */
  readonly reason: string;
  readonly detail: string;
  /** `complete` means "stop and accept if acceptance holds" (score rules). */
  readonly outcome: Outcome;
}

/**
 * A stop condition: a plain predicate over the run's recent history.
 * Guards are stateless; everything they read is in {@link GuardInput}.
 */
export interface Guard {
  readonly name: string;
  /** How many recent attempts this guard reads. @default 1 */
  readonly lookback: number;
  evaluate(input: GuardInput): StopVerdict | undefined;
}

/** First stop wins, in stack order. */
export function evaluatePolicy(guards: readonly Guard[], input: GuardInput): StopVerdict | undefined {
  for (const guard of guards) {
    const verdict = guard.evaluate(input);
    if (verdict !== undefined) return verdict;
  }
  return undefined;
}

/** The number of recent attempts the runtime must keep for a policy. */
export function policyLookback(guards: readonly Guard[]): number {
  return guards.reduce((max, guard) => Math.max(max, guard.lookback), 1);
}
