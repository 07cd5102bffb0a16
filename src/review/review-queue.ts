import type { Brief } from '../core/brief.js';
import type { Verification } from '../core/outcome.js';
import type { Alert, RunReport, WebhookDelivery } from './alerts.js';
import type { ModeChange, QueueMode } from './backpressure.js';
import type { ReviewConfig } from './config.js';
import type { LimitChange } from './feedback-tuner.js';
import type { JournalRow, JournalVerification } from './journal.js';
import type { FilterProposal } from './filter-proposal.js';
import type { FilterRule, FilterRuleEntry, FilterRuleInput } from './filter-rules.js';
import type { FilterSuggestion } from './labels.js';

/** A brief waiting for a person (SPEC §5): what they need to decide; the raw trace stays in the ledger. */
export interface ReviewItem {
  readonly id: string;
  readonly runId: string;
  readonly task: string;
  /** The run's task type (items enqueued before it was kept have none). */
  readonly taskType?: string;
  readonly finalOutput: Brief['finalOutput'];
  readonly cutoffReason: string;
  readonly lastError?: string;
  /** The failing findings of the run's last check set (items enqueued before they were kept have none). */
  readonly failing?: Brief['failing'];
  readonly failingOmitted?: number;
  /** What was stripped from the final output (thinking-token leakage), per pattern. */
  readonly stripped?: Brief['stripped'];
  readonly attempts: number;
  readonly verification: Verification;
  /** Higher is reviewed first and dropped last. */
  readonly priority: number;
  /** For example `draft`: produced in degraded mode with one attempt. */
  readonly tags: readonly string[];
  /** Milliseconds since the epoch. */
  readonly enqueuedAt: number;
}

/** `queued` and `claimed` items count toward the depth; `decided` and `dropped` ones left the queue. */
export type ReviewStatus = 'queued' | 'claimed' | 'decided' | 'dropped';

/** A reviewer's hold on an item; once `leaseUntil` passes, the item is claimable again. */
export interface ReviewClaim {
  readonly reviewer: string;
  readonly claimedAt: number;
  readonly leaseUntil: number;
}

export type VerdictDecision = 'approve' | 'reject';

export interface VerdictInput {
  readonly reviewer: string;
  readonly decision: VerdictDecision;
  /** One of the configured labels (SPEC §5's five and any added). */
  readonly label: string;
  readonly comment?: string;
}

export interface Verdict extends VerdictInput {
  readonly id: string;
  readonly itemId: string;
  readonly runId: string;
  readonly decidedAt: number;
}

/** An item with where it stands. */
export interface ReviewEntry {
  readonly item: ReviewItem;
  readonly status: ReviewStatus;
  /** Times the item was claimed (a claim whose lease ran out counts too). */
  readonly claims: number;
  /** The live claim, while the status is `claimed`. */
  readonly claim?: ReviewClaim;
  readonly verdict?: Verdict;
}

export interface EnqueueOptions {
  /** Tags stored with the item, e.g. `draft`. */
  readonly tags?: readonly string[];
}

export interface EnqueueResult {
  /** The item now in the queue; absent when it was dropped on arrival. */
  readonly item?: ReviewItem;
  /** The item dropped to make room (possibly the arriving one), as written to the circuit-breaker log. */
  readonly dropped?: ReviewItem;
  /** The mode after the enqueue. */
  readonly mode: QueueMode;
  /** The switch this enqueue caused: the caller records it in the ledger. */
  readonly modeChanged?: ModeChange;
  /** The run was enqueued before: nothing changed, `item` or `dropped` is what became of it. */
  readonly repeated?: true;
  /**
   * A filter rule decided the item on arrival (it never waited for a person): the rule and its verdict.
   * `rule.action` says what the verdict means for the run: `return` (refine, with the rule's feedback) or `reject`.
   */
  readonly caught?: { readonly rule: FilterRule; readonly verdict: Verdict };
}

export interface ClaimOptions {
  /** How long the claim holds before the item returns to the queue. @default 900_000 (15 minutes) */
  readonly leaseMs?: number;
}

export interface VerdictResult {
  /** The verdict stored for the item (the first one when this call repeated it). */
  readonly verdict: Verdict;
  /** An identical verdict was already given: nothing changed. */
  readonly repeated: boolean;
  readonly modeChanged?: ModeChange;
  /** The attempt limit change this verdict caused: the caller records it in the ledger. */
  readonly limitChanged?: LimitChange;
}

/** An item dropped at capacity, whole, as the circuit-breaker log keeps it. */
export interface DroppedItem {
  readonly item: ReviewItem;
  readonly droppedAt: number;
  /** The depth when it was dropped (the capacity, unless the capacity was lowered). */
  readonly depth: number;
  /** The arriving item that caused the drop: `item.id` itself when the newcomer was the lowest. */
  readonly displacedBy: string;
}

export interface ReviewStats {
  readonly depth: number;
  readonly capacity: number;
  readonly mode: QueueMode;
  /** Items held under a live claim. */
  readonly claimed: number;
  readonly attemptLimit: number;
  readonly verdicts: { readonly total: number; readonly approved: number; readonly rejected: number };
  /** The recent window's verdicts, newest first, that the next three figures are computed over. */
  readonly window: number;
  /** Approvals over the recent window; undefined without verdicts. */
  readonly approveRate?: number;
  readonly labelCounts: Readonly<Record<string, number>>;
  readonly suggestions: readonly FilterSuggestion[];
  readonly dropped: number;
  readonly alerts: number;
}

export interface Page {
  /** @default all */
  readonly limit?: number;
}

/** A page of a log, read from either end. */
export interface LogPage extends Page {
  /** The newest `limit` entries, newest first, instead of the oldest first. @default false */
  readonly newestFirst?: boolean;
}

/**
 * The human review queue (SPEC §5): briefs ordered by priority then age, with backpressure, verdicts
 * with reason labels, the feedback tuner's attempt limit and budget-cap alerts. Backends keep the same
 * contract (`test/review/contract.ts`); adapters open it on the ledger's own storage.
 */
export interface ReviewQueue {
  /**
   * The settings in force: backpressure, labels, tuner, alerts. They are stored with the queue, so
   * every process opening it agrees; options given when opening change them (and the journal says so).
   */
  readonly config: ReviewConfig;
  /**
   * Adds a brief. At capacity the lowest-priority (then oldest) item no reviewer holds is dropped, which
   * may be the brief itself, and written whole to the circuit-breaker log. Enqueuing a run again is a no-op.
   */
  enqueue(brief: Brief, options?: EnqueueOptions): Promise<EnqueueResult>;
  /** Takes the highest-priority, then oldest, item no reviewer holds; two reviewers never get the same one. */
  claim(reviewer: string, options?: ClaimOptions): Promise<ReviewEntry | undefined>;
  /**
   * Decides an item; it leaves the queue. Idempotent: the same verdict again returns the first; a
   * different one is refused with a `ReviewError` naming the first. An item under another reviewer's
   * live claim is refused.
   */
  verdict(itemId: string, input: VerdictInput): Promise<VerdictResult>;
  get(itemId: string): Promise<ReviewEntry | undefined>;
  /** The items in the queue (queued and claimed) in review order. */
  list(page?: Page): Promise<readonly ReviewEntry[]>;
  depth(): Promise<number>;
  mode(): Promise<QueueMode>;
  /** The feedback tuner's attempt limit for new runs. */
  currentLimit(): Promise<number>;
  /** The circuit-breaker log, oldest first (or newest first, see `LogPage`). */
  droppedItems(page?: LogPage): Promise<readonly DroppedItem[]>;
  /** Every mode switch, oldest first. */
  modeChanges(page?: Page): Promise<readonly ModeChange[]>;
  /** Every attempt limit change with its evidence, oldest first. */
  limitChanges(page?: Page): Promise<readonly LimitChange[]>;
  /** The newest verdicts, newest first. @default n = the label window (50) */
  recentVerdicts(n?: number): Promise<readonly Verdict[]>;
  /** Label counts over the newest `window` verdicts. @default window = the label window (50) */
  labelCounts(window?: number): Promise<Readonly<Record<string, number>>>;
  stats(): Promise<ReviewStats>;
  /** Stores a finished run's report and applies the alert policy; see `budgetAlerts`. A repeated run id is a no-op. */
  recordRun(report: RunReport): Promise<{ alert?: Alert }>;
  recordAlertDelivery(alertId: string, delivery: WebhookDelivery): Promise<void>;
  /** Alerts raised, oldest first (or newest first, see `LogPage`). */
  alerts(page?: LogPage): Promise<readonly Alert[]>;
  /**
   * The queue's hash-chained journal, oldest first: settings, verdicts, mode changes, attempt-limit
   * changes with their evidence, drops (the whole item) and alerts, as stored.
   */
  journal(page?: Page): Promise<readonly JournalRow[]>;
  /** Checks the whole journal against its hashes and the queue's own count of it, in one snapshot. */
  verifyJournal(): Promise<JournalVerification>;
  /**
   * Stores a reviewer by name with the hash of their sign-in token (the web app's `hashToken`), replacing
   * the hash stored for that name before: a new token for a name revokes the old one.
   */
  addReviewer(name: string, tokenHash: string): Promise<void>;
  /** The name of the reviewer whose token hashes to `tokenHash`; undefined for a token no one holds. */
  reviewerByToken(tokenHash: string): Promise<string | undefined>;
  /** Returns every item `reviewer` holds under a live claim to the queue (sign-out); how many it released. */
  releaseClaims(reviewer: string): Promise<number>;
  /**
   * Adds an automatic filter rule (SPEC §5): from now on an arriving item it matches is decided by it
   * (`EnqueueResult.caught`) instead of waiting for a person. Journaled with the reviewer who added it.
   * Idempotent: an enabled rule with the same label, action and match is returned (`repeated`).
   */
  addFilterRule(input: FilterRuleInput): Promise<{ rule: FilterRule; repeated: boolean }>;
  /** Disables (or enables again) a filter rule; journaled. Rules are never deleted. */
  setFilterRule(id: string, change: { readonly enabled: boolean; readonly by: string }): Promise<FilterRule>;
  /** The filter rules in the order they were added, each with the number of items it caught. */
  filterRules(): Promise<readonly FilterRuleEntry[]>;
  /**
   * The rule a suggestion for `label` would become: what the recent items people gave the label to have
   * in common (task type, stop reason, failing reason codes).
   */
  proposeFilterRule(label: string): Promise<FilterProposal>;
  close(): Promise<void>;
}
