import { canonicalJson } from '../core/canonical-json.js';
import type { ReviewConfig } from './config.js';
import { limitChange } from './feedback-tuner.js';
import { findRule, newFilterRule, ruleReviewer, type FilterRule, type FilterRuleInput } from './filter-rules.js';
import { chainJournal } from './journal.js';
import type { EnqueueResult } from './reviewer-queue.js';
import type { ReviewItem, Verdict } from './types.js';
import { ask, type LockedState, type QueueWrite, type TxStep } from './review-store.js';

// The transactions that change filter rules and the one a rule decides an item in; the queue runs them
// in its store's write transaction after reading (and, when another process changed them, reloading)
// the settings, so `config` is the one in force.

const stateOf = ({ head: _head, settingsVersion: _version, ...state }: LockedState): QueueWrite['state'] & object => state;

/** Where a rule change leaves the queue: the rule, the settings now in force, and whether it was a repeat. */
export interface RuleChange {
  readonly rule: FilterRule;
  readonly config: ReviewConfig;
  /** Nothing changed: the same rule was enabled already (a double-submitted form), or already in that state. */
  readonly repeated: boolean;
}

const sameRule = (a: FilterRule, b: FilterRule): boolean =>
  a.enabled && a.label === b.label && a.action === b.action && canonicalJson(a.match) === canonicalJson(b.match);

/** Adds a rule (settings and journal in one write); an enabled rule with the same label, action and match is returned instead. */
export function* addRuleStep(state: LockedState, config: ReviewConfig, input: FilterRuleInput, at: number): TxStep<RuleChange> {
  const rule = newFilterRule(input, { labels: config.labels, existing: config.filters.length, at });
  const same = config.filters.find((existing) => sameRule(existing, rule));
  if (same !== undefined) return { rule: same, config, repeated: true };
  const to: ReviewConfig = { ...config, filters: [...config.filters, rule] };
  yield* ask((tx) =>
    tx.write({
      settings: JSON.stringify(to),
      journal: chainJournal(state.head, [{ type: 'filter_rule', at, data: { event: 'added', by: input.by, rule, to } }]),
    }),
  );
  return { rule, config: to, repeated: false };
}

/** Enables or disables rule `id`. */
export function* setRuleStep(
  state: LockedState,
  config: ReviewConfig,
  { id, enabled, by }: { id: string; enabled: boolean; by: string },
  at: number,
): TxStep<RuleChange> {
  const found = findRule(config.filters, id);
  if (found.enabled === enabled) return { rule: found, config, repeated: true };
  const rule: FilterRule = { ...found, enabled };
  const to: ReviewConfig = { ...config, filters: config.filters.map((existing) => (existing.id === id ? rule : existing)) };
  yield* ask((tx) =>
    tx.write({
      settings: JSON.stringify(to),
      journal: chainJournal(state.head, [{ type: 'filter_rule', at, data: { event: enabled ? 'enabled' : 'disabled', by, rule, to } }]),
    }),
  );
  return { rule, config: to, repeated: false };
}

/**
 * A rule decides an arriving item: it joins the queue and leaves it decided in one write, with the
 * rule's label and feedback, by reviewer `filter:<id>`. It is a verdict like any other (stats, journal,
 * tuner); the depth and mode do not move.
 */
export function* caughtStep(
  state: LockedState,
  config: ReviewConfig,
  { item, rule, at, verdictId }: { item: ReviewItem; rule: FilterRule; at: number; verdictId: string },
): TxStep<EnqueueResult> {
  const verdict: Verdict = {
    id: verdictId,
    itemId: item.id,
    runId: item.runId,
    reviewer: ruleReviewer(rule.id),
    decision: 'reject',
    label: rule.label,
    comment: rule.comment ?? `caught by filter rule ${rule.id} (${rule.label})`,
    decidedAt: at,
  };
  const window = [...(yield* ask((tx) => tx.recentVerdicts(config.tuner.window - 1)))].reverse().concat(verdict);
  const change = limitChange({ limit: state.attemptLimit, window, policy: config.tuner, at });
  yield* ask((tx) =>
    tx.write({
      insert: { item, state: 'open' },
      verdict: { verdict, window },
      state: { ...stateOf(state), verdicts: state.verdicts + 1, attemptLimit: change?.to ?? state.attemptLimit },
      ...(change === undefined ? {} : { limitChange: change }),
      journal: chainJournal(state.head, [
        { type: 'verdict', at, data: verdict },
        ...(change === undefined ? [] : [{ type: 'limit_change' as const, at, data: change }]),
      ]),
    }),
  );
  return { item, mode: state.mode, caught: { rule, verdict } };
}
