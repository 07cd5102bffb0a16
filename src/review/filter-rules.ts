import { assertLabel, type LabelPolicy } from './labels.js';
import { ReviewError } from './review-error.js';
import type { ReviewItem } from './types.js';

/**
 * Automatic filter rules (docs/review.md, 'The queue'): a reviewer turns a frequent label into a rule, and new items that
 * match it are decided by the rule — labelled, and returned to the loop as feedback or rejected — before
 * they reach a person. Rules are stored with the queue's settings and journaled; they are disabled, never
 * deleted, so every verdict a rule gave keeps naming a rule the journal holds.
 */

/** What a rule does with an item it catches: `return` it to the loop as feedback (a human judge refines), or `reject` it (fails). */
export type FilterAction = 'return' | 'reject';

/** What an item must have for a rule to catch it; every criterion given must hold, and at least one is given. */
export interface FilterMatch {
  /** The task type of the item's run (mission `taskType`). */
  readonly taskType?: string;
  /** The stop reason the run was cut off for: the code before `:` in the item's cutoff reason. */
  readonly stopReason?: string;
  /** Reason codes every one of which is among the item's failing findings' codes. */
  readonly reasonCodes?: readonly string[];
  /** Text (case-insensitive) found in the item's task, cutoff reason, last error or a failing finding's message. */
  readonly pattern?: string;
}

export interface FilterRule {
  /** `r1`, `r2`, … in the order rules were added to the queue. */
  readonly id: string;
  /** The verdict label the rule gives. */
  readonly label: string;
  readonly action: FilterAction;
  readonly match: FilterMatch;
  /** The feedback the verdict carries (the loop reads it on `return`). */
  readonly comment?: string;
  readonly enabled: boolean;
  /** The reviewer who added the rule. */
  readonly createdBy: string;
  readonly createdAt: number;
}

/** A rule as `addFilterRule` takes it. */
export interface FilterRuleInput {
  readonly label: string;
  readonly match: FilterMatch;
  /** @default 'return' */
  readonly action?: FilterAction;
  readonly comment?: string;
  /** The reviewer adding the rule. */
  readonly by: string;
}

/** A rule with the number of items it caught. */
export interface FilterRuleEntry extends FilterRule {
  readonly caught: number;
}

/** The reviewer a rule's verdicts name: `filter:r1`. Names with this prefix are refused for people. */
export const RULE_REVIEWER_PREFIX = 'filter:';

export const ruleReviewer = (ruleId: string): string => `${RULE_REVIEWER_PREFIX}${ruleId}`;

/** The rule id a verdict's reviewer names, when a rule gave it. */
export function ruleIdOf(reviewer: string): string | undefined {
  return reviewer.startsWith(RULE_REVIEWER_PREFIX) ? reviewer.slice(RULE_REVIEWER_PREFIX.length) : undefined;
}

const CODE = /^[A-Za-z0-9_.:/-]{1,200}$/;
const MAX_PATTERN = 200;
const MAX_COMMENT = 2_000;

const expect = (ok: boolean, what: string, got: unknown): void => {
  if (!ok) throw new TypeError(`Expected ${what}, got ${JSON.stringify(got)}`);
};

/** The match, validated and normalized (trimmed, codes sorted and unique, empty criteria left out). */
export function filterMatch(match: FilterMatch): FilterMatch {
  expect(typeof match === 'object' && match !== null, 'a filter match object', match);
  const { taskType, stopReason, reasonCodes, pattern } = match;
  expect(taskType === undefined || (typeof taskType === 'string' && CODE.test(taskType)), 'taskType to be a task type name', taskType);
  expect(
    stopReason === undefined || (typeof stopReason === 'string' && CODE.test(stopReason)),
    'stopReason to be a stop reason code',
    stopReason,
  );
  expect(
    reasonCodes === undefined || (Array.isArray(reasonCodes) && reasonCodes.every((code) => typeof code === 'string' && CODE.test(code))),
    'reasonCodes to be reason codes (letters, digits, _ . : / -)',
    reasonCodes,
  );
  const text = typeof pattern === 'string' ? pattern.trim() : pattern;
  expect(
    text === undefined || text === '' || (typeof text === 'string' && text.length <= MAX_PATTERN),
    `pattern to be text of at most ${MAX_PATTERN} characters`,
    pattern,
  );
  const codes = [...new Set(reasonCodes ?? [])].sort();
  const normalized: FilterMatch = {
    ...(taskType === undefined ? {} : { taskType }),
    ...(stopReason === undefined ? {} : { stopReason }),
    ...(codes.length === 0 ? {} : { reasonCodes: codes }),
    ...(text === undefined || text === '' ? {} : { pattern: text }),
  };
  // A rule with nothing to match would decide every item without a person: refused.
  if (Object.keys(normalized).length === 0)
    throw new TypeError('Expected a filter match with at least one of taskType, stopReason, reasonCodes or pattern, got none');
  return normalized;
}

/** A new rule from `input`, validated against the label policy, numbered after the `existing` ones. */
export function newFilterRule(
  input: FilterRuleInput,
  { labels, existing, at }: { labels: LabelPolicy; existing: number; at: number },
): FilterRule {
  expect(typeof input === 'object' && input !== null, 'a filter rule object', input);
  const { label, action = 'return', comment, by } = input;
  expect(
    typeof by === 'string' && by.trim().length > 0 && ruleIdOf(by) === undefined,
    'the reviewer adding the rule (by) to be a name',
    by,
  );
  expect(action === 'return' || action === 'reject', 'action to be return or reject', action);
  expect(
    comment === undefined || (typeof comment === 'string' && comment.length <= MAX_COMMENT),
    `comment to be text of at most ${MAX_COMMENT} characters`,
    comment,
  );
  assertLabel(labels, label, `r${existing + 1}`);
  const feedback = comment?.trim();
  return {
    id: `r${existing + 1}`,
    label,
    action,
    match: filterMatch(input.match),
    ...(feedback === undefined || feedback === '' ? {} : { comment: feedback }),
    enabled: true,
    createdBy: by,
    createdAt: at,
  };
}

/** The rule `id` among `rules`; refuses an unknown one, naming the ones there are. */
export function findRule(rules: readonly FilterRule[], id: string): FilterRule {
  const rule = rules.find((candidate) => candidate.id === id);
  if (rule !== undefined) return rule;
  throw new ReviewError({
    code: 'review.unknown_filter',
    message: `No filter rule ${JSON.stringify(id)}${rules.length === 0 ? ': the queue has none' : `: the queue has ${rules.map((r) => r.id).join(', ')}`}`,
  });
}

/** The stop reason of a cutoff reason (`budget_attempts: 5 of 5 attempts used` → `budget_attempts`). */
export const stopReasonOf = (cutoffReason: string): string => cutoffReason.split(':', 1)[0]?.trim() ?? '';

/** The failing findings' reason codes of an item, each once. */
export function reasonCodesOf(item: Pick<ReviewItem, 'failing'>): Set<string> {
  return new Set((item.failing ?? []).flatMap((finding) => finding.reasonCodes));
}

/** Whether `rule` catches `item` (enabled or not: the caller picks enabled rules). */
export function ruleMatches(rule: Pick<FilterRule, 'match'>, item: ReviewItem): boolean {
  const { taskType, stopReason, reasonCodes, pattern } = rule.match;
  if (taskType !== undefined && item.taskType !== taskType) return false;
  if (stopReason !== undefined && stopReasonOf(item.cutoffReason) !== stopReason) return false;
  if (reasonCodes !== undefined) {
    const codes = reasonCodesOf(item);
    if (!reasonCodes.every((code) => codes.has(code))) return false;
  }
  if (pattern !== undefined) {
    // A substring, not a regular expression: item text is untrusted and may be megabytes long.
    const needle = pattern.toLowerCase();
    const texts = [item.task, item.cutoffReason, item.lastError ?? '', ...(item.failing ?? []).map((finding) => finding.message)];
    if (!texts.some((text) => text.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/** The first enabled rule that catches `item`, in the order rules were added. */
export function catchingRule(rules: readonly FilterRule[], item: ReviewItem): FilterRule | undefined {
  return rules.find((rule) => rule.enabled && ruleMatches(rule, item));
}

/** Rules as stored with the settings (parsed JSON), checked; refuses a malformed one naming it. */
export function parseFilterRules(stored: unknown): readonly FilterRule[] {
  expect(Array.isArray(stored), 'the stored filter rules to be an array', stored);
  return (stored as unknown[]).map((value, index) => {
    const rule = (typeof value === 'object' && value !== null ? value : {}) as Partial<FilterRule>;
    const ok =
      typeof rule.id === 'string' &&
      typeof rule.label === 'string' &&
      (rule.action === 'return' || rule.action === 'reject') &&
      typeof rule.enabled === 'boolean' &&
      typeof rule.createdBy === 'string' &&
      Number.isFinite(rule.createdAt) &&
      (rule.comment === undefined || typeof rule.comment === 'string');
    expect(ok, `stored filter rule ${index} to have id, label, action, enabled, createdBy and createdAt`, value);
    return { ...(rule as FilterRule), match: filterMatch(rule.match as FilterMatch) };
  });
}

/** A match in one line: `task type parser · stop budget_attempts · codes a, b · text "x"`. */
export function describeMatch(match: FilterMatch): string {
  return [
    match.taskType === undefined ? undefined : `task type ${match.taskType}`,
    match.stopReason === undefined ? undefined : `stop ${match.stopReason}`,
    match.reasonCodes === undefined ? undefined : `codes ${match.reasonCodes.join(', ')}`,
    match.pattern === undefined ? undefined : `text ${JSON.stringify(match.pattern)}`,
  ]
    .filter((part) => part !== undefined)
    .join(' · ');
}
