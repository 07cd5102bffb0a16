import { StopReason } from '../core/outcome.js';
import { budgets } from './budget.js';
import { expectInteger } from './expect.js';
import type { Guard } from './guard.js';
import { proposerEnvironment } from './proposer-environment.js';

/**
 * Stops with `failed_with_evidence` (reason `no_change`) once the last `times` attempts in a row each changed
 * nothing (`proposer.no_change`): the proposer is not working on the task, and more attempts would spend
 * the budget on the same unchanged candidate. Reads `times` attempts. The runtime applies it to every run,
 * ahead of the budgets and the mission's policy ({@link runtimeGuards}).
 *
 * @param times Attempts in a row. @default 2
 * @param who The proposer in the verdict's words. @default 'the proposer'
 * @example
 * noChange(2, 'the agent') // "the agent changed nothing in 2 attempts in a row"
 */
export function noChange(times = 2, who = 'the proposer'): Guard {
  expectInteger('times', times, 1);
  const name = `noChange(${times})`;
  return {
    name,
    lookback: times,
    evaluate({ recent }) {
      const last = recent.slice(-times);
      if (last.length < times || last.some((attempt) => attempt.noChange !== true)) return undefined;
      return {
        guard: name,
        reason: StopReason.noChange,
        outcome: 'failed_with_evidence',
        detail: `${who} changed nothing in ${times} attempts in a row`,
      };
    },
  };
}

/**
 * The guards the runtime stacks ahead of every mission's policy, in order: {@link proposerEnvironment},
 * {@link noChange} (which names the proposer as `who`), then the four budgets. A run whose proposer changed
 * nothing twice in a row stops for that, even when its last attempt also used up the budget.
 */
export function runtimeGuards(who?: string): Guard[] {
  return [proposerEnvironment(who), noChange(2, who), ...budgets()];
}
