import { ReviewError } from './review-error.js';

/** The reason labels every queue has (docs/review.md); configuration may add more. */
export const VERDICT_LABELS = Object.freeze(['code_error', 'logic_error', 'format_issue', 'hallucination', 'unclear'] as const);

/** How label suggestions are computed. */
export interface LabelPolicy {
  /** Labels a verdict may carry: the five of {@link VERDICT_LABELS} and any added by configuration. */
  readonly labels: readonly string[];
  /** Verdicts, newest first, that label counts and suggestions look at. @default 50 */
  readonly window: number;
  /** A label seen more than this many times in the window raises a suggestion. @default 3 */
  readonly suggestAbove: number;
}

/** A label frequent enough that an automatic filter could catch it before a person has to. */
export interface FilterSuggestion {
  readonly label: string;
  readonly count: number;
  readonly suggestion: string;
}

const LABEL = /^[a-z][a-z0-9_]*$/;

/** The label policy with `extra` labels added to the five; labels are snake_case words. */
export function labelPolicy({
  extra = [],
  window = 50,
  suggestAbove = 3,
}: { extra?: readonly string[]; window?: number; suggestAbove?: number } = {}): LabelPolicy {
  for (const label of extra) {
    if (typeof label !== 'string' || !LABEL.test(label))
      throw new TypeError(`Expected a label in snake_case (a-z, 0-9, _), got ${JSON.stringify(label)}`);
  }
  if (!Number.isInteger(window) || window < 1) throw new TypeError(`Expected the label window to be a positive integer, got ${window}`);
  if (!Number.isInteger(suggestAbove) || suggestAbove < 0)
    throw new TypeError(`Expected suggestAbove to be a non-negative integer, got ${suggestAbove}`);
  return Object.freeze({ labels: Object.freeze([...new Set([...VERDICT_LABELS, ...extra])]), window, suggestAbove });
}

/** Refuses a label the policy does not know, naming the ones it does. */
export function assertLabel(policy: LabelPolicy, label: string, itemId: string): void {
  if (policy.labels.includes(label)) return;
  throw new ReviewError({
    code: 'review.unknown_label',
    itemId,
    message: `Unknown verdict label ${JSON.stringify(label)}: expected one of ${policy.labels.join(', ')}`,
  });
}

/** Counts per label over `labels` (the window's verdicts); every known label appears, unseen ones with 0. */
export function countLabels(policy: LabelPolicy, labels: readonly string[]): Readonly<Record<string, number>> {
  const counts: Record<string, number> = Object.fromEntries(policy.labels.map((label) => [label, 0]));
  for (const label of labels) counts[label] = (counts[label] ?? 0) + 1;
  return counts;
}

/** A suggestion for each label seen more than `suggestAbove` times, most frequent first. */
export function suggestFilters(
  policy: LabelPolicy,
  counts: Readonly<Record<string, number>>,
  verdicts: number,
): readonly FilterSuggestion[] {
  return Object.entries(counts)
    .filter(([, count]) => count > policy.suggestAbove)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([label, count]) => ({
      label,
      count,
      suggestion: `add an automatic filter rule for ${label}: ${count} of the last ${verdicts} verdicts carry it`,
    }));
}
