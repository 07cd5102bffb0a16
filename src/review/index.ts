// The review queue (docs/review.md): briefs for people, backpressure, verdicts, the feedback tuner and alerts.
// Backends: `MemoryReviewQueue`, `SqliteReviewQueue`, `PostgresReviewQueue` (on the ledger's storage).
export type {
  ReviewQueue,
  ReviewerQueue,
  QueueAdmin,
  QueueAudit,
  ReviewItem,
  ReviewEntry,
  ReviewStatus,
  ReviewClaim,
  ReviewStats,
  Verdict,
  VerdictDecision,
  VerdictInput,
  VerdictResult,
  EnqueueOptions,
  EnqueueResult,
  ClaimOptions,
  DroppedItem,
  LogPage,
  Page,
} from './review-queue.js';
export { resolveReviewOptions, type ReviewQueueOptions, type ReviewConfig, type ReviewRuntime } from './config.js';
export {
  BACKPRESSURE,
  backpressure,
  watermark,
  nextMode,
  dropVictim,
  admit,
  release,
  type Backpressure,
  type QueueMode,
  type Ranked,
  type ModeChange,
  type DepthChange,
  type Admission,
} from './backpressure.js';
export { TUNER, tuner, tuneLimit, limitChange, type Tuner, type LimitChange } from './feedback-tuner.js';
export { VERDICT_LABELS, labelPolicy, countLabels, suggestFilters, type LabelPolicy, type FilterSuggestion } from './labels.js';
export {
  ALERTS,
  alertPolicy,
  alertStep,
  alertLine,
  budgetAlerts,
  type AlertPolicy,
  type AlertStep,
  type Alert,
  type RunReport,
  type WebhookDelivery,
  type WebhookOptions,
  type AlertLogger,
  type RunReports,
  type BudgetAlerts,
  type BudgetAlertsOptions,
} from './alerts.js';
export {
  ruleMatches,
  type FilterRule,
  type FilterRuleInput,
  type FilterRuleEntry,
  type FilterMatch,
  type FilterAction,
} from './filter-rules.js';
export type { FilterProposal } from './filter-proposal.js';
export { ReviewError } from './review-error.js';
export { REVIEW_MIGRATIONS } from './migrations.js';
export { MemoryReviewQueue } from './memory/memory-review-queue.js';
export { SqliteReviewQueue, type SqliteReviewQueueOptions } from './sqlite/sqlite-review-queue.js';
export { PostgresReviewQueue, type PostgresReviewQueueOptions } from './postgres/postgres-review-queue.js';
export { openReviewQueue } from './open-review-queue.js';
