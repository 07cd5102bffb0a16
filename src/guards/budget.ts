import { StopReason } from '../core/outcome.js';
import type { Guard, GuardInput } from './guard.js';

interface Meter {
  readonly name: string;
  readonly reason: string;
  /** What has been spent, and the limit (`undefined` when the mission sets none). */
  measure(input: GuardInput): { used: number; limit: number | undefined };
  describe(used: number, limit: number): string;
}

/** A circuit breaker: stops with `failed_with_evidence` once `used ≥ limit`, never when no limit is set. */
function budgetGuard({ name, reason, measure, describe }: Meter): Guard {
  return {
    name,
    // Reads only the run counters, never the attempt history.
    lookback: 0,
    evaluate(input) {
      const { used, limit } = measure(input);
      if (limit === undefined || used < limit) return undefined;
      return { guard: name, reason, outcome: 'failed_with_evidence', detail: describe(used, limit) };
    },
  };
}

/**
 * Stops (reason `budget_attempts`) once `counters.attempts ≥ budgets.maxAttempts`.
 *
 * @example
 * attemptsBudget() // with maxAttempts 5: "5 of 5 attempts used"
 */
export function attemptsBudget(): Guard {
  return budgetGuard({
    name: 'attemptsBudget()',
    reason: 'budget_attempts',
    measure: ({ counters, budgets }) => ({ used: counters.attempts, limit: budgets.maxAttempts }),
    describe: (used, limit) => `${used} of ${limit} attempts used`,
  });
}

/**
 * Stops (reason `budget_tokens`) once input plus output tokens reach `budgets.maxTokens`, when set.
 *
 * @example
 * tokensBudget() // with maxTokens 10000: "10250 of 10000 tokens used"
 */
export function tokensBudget(): Guard {
  return budgetGuard({
    name: 'tokensBudget()',
    reason: 'budget_tokens',
    measure: ({ counters, budgets }) => ({ used: counters.inputTokens + counters.outputTokens, limit: budgets.maxTokens }),
    describe: (used, limit) => `${used} of ${limit} tokens used`,
  });
}

/**
 * Stops (reason `budget_wall_clock`) once `counters.elapsedMs` reaches `budgets.maxWallClockMs`, when set.
 * Between attempts only: the runtime also enforces this budget while a proposer or check runs.
 *
 * @example
 * wallClockBudget() // with maxWallClockMs 60000: "61200 of 60000 ms used"
 */
export function wallClockBudget(): Guard {
  return budgetGuard({
    name: 'wallClockBudget()',
    reason: StopReason.budgetWallClock,
    measure: ({ counters, budgets }) => ({ used: counters.elapsedMs, limit: budgets.maxWallClockMs }),
    describe: (used, limit) => `${used} of ${limit} ms used`,
  });
}

/** Dollars to at most four decimals: summed prices carry floating-point noise. */
const usd = (value: number): string => String(Number(value.toFixed(4)));

/**
 * Stops (reason `budget_cost`) once `counters.costUsd` reaches `budgets.maxCostUsd`, when set.
 *
 * @example
 * costBudget() // with maxCostUsd 1: "$1.02 of $1 used"
 */
export function costBudget(): Guard {
  return budgetGuard({
    name: 'costBudget()',
    reason: 'budget_cost',
    measure: ({ counters, budgets }) => ({ used: counters.costUsd, limit: budgets.maxCostUsd }),
    describe: (used, limit) => `$${usd(used)} of $${usd(limit)} used`,
  });
}

/**
 * The four budget guards, in the order the runtime stacks them: attempts, tokens, wall-clock, cost.
 *
 * @example
 * const policy = [...budgets(), ...buildPolicy(defaultGuards())];
 */
export function budgets(): Guard[] {
  return [attemptsBudget(), tokensBudget(), wallClockBudget(), costBudget()];
}
