import { StopReason } from '../core/outcome.js';
import type { Guard } from './guard.js';

/**
 * Stops with `blocked` (reason `environment`) after an attempt whose proposer failed on its environment
 * (`proposer.environment`: an agent whose model endpoint was out of reach, or refused its key): every
 * further attempt would fail the same way and spend the budget, so an outside repair is needed. Reads one
 * attempt; the runtime applies it to every run, first (`runtimeGuards`).
 * @param who The proposer in the verdict's words. @default 'the proposer'
 */
export function proposerEnvironment(who = 'the proposer'): Guard {
  return {
    name: 'proposerEnvironment',
    lookback: 1,
    evaluate({ recent }) {
      const last = recent.at(-1);
      if (last?.environment !== true) return undefined;
      return {
        guard: 'proposerEnvironment',
        reason: StopReason.environment,
        outcome: 'blocked',
        detail: `${who} failed on its environment at attempt ${last.attempt} (proposer.environment: see the attempt's finding): every attempt would fail the same way until it is repaired`,
      };
    },
  };
}
