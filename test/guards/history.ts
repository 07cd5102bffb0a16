import type { AttemptSummary, BudgetLimits, GuardInput, RunCounters } from '../../src/guards/guard.js';

/** An attempt's fields; `attempt` is numbered from 1 by position. */
export type AttemptInit = Partial<Omit<AttemptSummary, 'attempt'>>;

export interface HistoryOptions {
  readonly counters?: Partial<RunCounters>;
  readonly budgets?: Partial<BudgetLimits>;
  /** @default 3 */
  readonly progressWindow?: number;
}

/**
 * A guard input over the given attempts, oldest first. By default every attempt is distinct (own
 * candidate and signature), unscored, not rejected and making progress, so no guard has cause to stop;
 * `counters.attempts` is the number of attempts.
 */
export function history(inits: readonly AttemptInit[] = [], options: HistoryOptions = {}): GuardInput {
  const recent = inits.map((init, index): AttemptSummary => ({
    attempt: index + 1,
    candidateHash: `candidate-${index + 1}`,
    signature: `state-${index + 1}`,
    rejection: '',
    failing: 0,
    failed: false,
    infraError: false,
    progress: true,
    ...init,
  }));
  return {
    recent,
    counters: {
      attempts: recent.length,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      elapsedMs: 0,
      sinceProgress: 0,
      failedRounds: 0,
      ...options.counters,
    },
    budgets: { maxAttempts: 100, ...options.budgets },
    progressWindow: options.progressWindow ?? 3,
    taskType: 'test',
  };
}

/** One attempt per score, oldest first; `undefined` leaves that attempt unscored. */
export function scored(...scores: readonly (number | undefined)[]): GuardInput {
  return history(scores.map((score) => (score === undefined ? {} : { score })));
}

/** One attempt per state signature, e.g. `states('A', 'B', 'A')`. */
export function states(...signatures: readonly string[]): GuardInput {
  return history(signatures.map((signature) => ({ signature })));
}
