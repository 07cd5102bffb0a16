/** What the last informative attempt (or the baseline) established; progress is measured against it. */
export interface Frontier {
  readonly completed: readonly string[];
  readonly failing: readonly string[];
  /** Failing codes of promotion-stage checks: the harder stage. */
  readonly hardFailing: readonly string[];
  readonly footprint: number;
  readonly bestScore?: number;
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((item) => b.includes(item));
const subset = (a: readonly string[], b: readonly string[]): boolean => a.every((item) => b.includes(item));

/**
 * Progress: on the same check set, fewer failing reason codes without a regression in the
 * harder stage; or the evidence frontier advances (a check that could not run now runs); or the
 * footprint contracts without more failures; or the score rises above the best seen so far.
 */
export function madeProgress(previous: Frontier, current: Frontier): boolean {
  if (sameSet(previous.completed, current.completed)) {
    if (current.failing.length < previous.failing.length && subset(current.hardFailing, previous.hardFailing)) return true;
  } else if (subset(previous.completed, current.completed)) {
    return true;
  }
  if (current.footprint < previous.footprint && current.failing.length <= previous.failing.length) return true;
  return current.bestScore !== undefined && (previous.bestScore === undefined || current.bestScore > previous.bestScore);
}
