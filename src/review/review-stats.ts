import type { QueueMode } from './backpressure.js';
import type { ReviewConfig } from './config.js';
import { ruleIdOf } from './filter-rules.js';
import { countLabels, suggestFilters } from './labels.js';
import type { ReviewStats } from './reviewer-queue.js';
import type { Verdict } from './types.js';

/** The figures an adapter counted, and the window's verdicts (newest first) that the rest derive from. */
export interface StatsInput {
  readonly depth: number;
  readonly mode: QueueMode;
  readonly claimed: number;
  readonly attemptLimit: number;
  readonly approved: number;
  readonly rejected: number;
  readonly dropped: number;
  readonly alerts: number;
  readonly recent: readonly Pick<Verdict, 'decision' | 'label' | 'reviewer'>[];
}

export function reviewStats(config: ReviewConfig, input: StatsInput): ReviewStats {
  const labelCounts = countLabels(
    config.labels,
    input.recent.map((verdict) => verdict.label),
  );
  const human = input.recent.filter((verdict) => ruleIdOf(verdict.reviewer) === undefined);
  const approvals = input.recent.filter((verdict) => verdict.decision === 'approve').length;
  return {
    depth: input.depth,
    capacity: config.backpressure.capacity,
    mode: input.mode,
    claimed: input.claimed,
    attemptLimit: input.attemptLimit,
    verdicts: { total: input.approved + input.rejected, approved: input.approved, rejected: input.rejected },
    window: input.recent.length,
    ...(input.recent.length === 0 ? {} : { approveRate: approvals / input.recent.length }),
    labelCounts,
    // Suggestions come from people's verdicts: a rule's own verdicts would keep suggesting it. A label an
    // enabled rule already gives is not suggested again.
    suggestions: suggestFilters(
      config.labels,
      countLabels(
        config.labels,
        human.map((verdict) => verdict.label),
      ),
      human.length,
    ).filter((suggestion) => !config.filters.some((rule) => rule.enabled && rule.label === suggestion.label)),
    dropped: input.dropped,
    alerts: input.alerts,
  };
}
