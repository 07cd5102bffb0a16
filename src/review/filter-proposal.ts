import { reasonCodesOf, stopReasonOf, type FilterMatch } from './filter-rules.js';
import type { ReviewItem } from './types.js';

/** A rule a reviewer may accept for a frequent label: what its labelled items have in common. */
export interface FilterProposal {
  readonly label: string;
  /** The match the labelled items share; empty when they share nothing (the reviewer writes a pattern). */
  readonly match: FilterMatch;
  /** Recent items with the label, and how many of them the proposed match catches. */
  readonly labelled: number;
  readonly matching: number;
}

const mostCommon = <T>(values: readonly T[]): { value: T; count: number } | undefined => {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best: { value: T; count: number } | undefined;
  for (const [value, count] of counts) if (best === undefined || count > best.count) best = { value, count };
  return best;
};

/**
 * What the items a label was given to have in common, as a match: the most common task type among
 * them, then, within those, the stop reason they all share and the failing reason codes every one of
 * them has. `items` are the recent items the label was given to (by people), newest first.
 */
export function proposeFilter(label: string, items: readonly ReviewItem[]): FilterProposal {
  const typed = mostCommon(items.map((item) => item.taskType));
  const group = typed === undefined ? [] : items.filter((item) => item.taskType === typed.value);
  const stops = new Set(group.map((item) => stopReasonOf(item.cutoffReason)));
  const stopReason = stops.size === 1 ? [...stops][0] : undefined;
  let codes: Set<string> | undefined;
  for (const item of group) {
    const own = reasonCodesOf(item);
    codes = codes === undefined ? own : new Set([...codes].filter((code) => own.has(code)));
  }
  const reasonCodes = [...(codes ?? [])].sort();
  const match: FilterMatch = {
    ...(typed?.value === undefined ? {} : { taskType: typed.value }),
    ...(stopReason === undefined || stopReason === '' ? {} : { stopReason }),
    ...(reasonCodes.length === 0 ? {} : { reasonCodes }),
  };
  return { label, match, labelled: items.length, matching: Object.keys(match).length === 0 ? 0 : group.length };
}
