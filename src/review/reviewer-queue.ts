import type { Brief } from '../core/brief.js';
import type { RunReports } from './alerts.js';
import type { ModeChange, QueueMode } from './backpressure.js';
import type { ReviewConfig } from './config.js';
import type { LimitChange } from './feedback-tuner.js';
import type { FilterRule } from './filter-rules.js';
import type { FilterSuggestion } from './labels.js';
import type { ClaimOptions, EnqueueOptions, Page, ReviewEntry, ReviewItem, Verdict, VerdictInput } from './types.js';

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

export interface VerdictResult {
  /** The verdict stored for the item (the first one when this call repeated it). */
  readonly verdict: Verdict;
  /** An identical verdict was already given: nothing changed. */
  readonly repeated: boolean;
  readonly modeChanged?: ModeChange;
  /** The attempt limit change this verdict caused: the caller records it in the ledger. */
  readonly limitChanged?: LimitChange;
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

/**
 * The review queue as its work sees it (docs/review.md): runs hand briefs in and report how they ended,
 * people claim items and give verdicts. Briefs are ordered by priority then age, with backpressure and
 * the feedback tuner's attempt limit. The handoff and the human judge need nothing more.
 */
export interface ReviewerQueue extends RunReports {
  /**
   * The settings in force: backpressure, labels, tuner, alerts, filter rules. They are stored with the
   * queue, so every process opening it agrees; options given when opening change them (and the journal
   * says so).
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
  /** Returns every item `reviewer` holds under a live claim to the queue (sign-out); how many it released. */
  releaseClaims(reviewer: string): Promise<number>;
  get(itemId: string): Promise<ReviewEntry | undefined>;
  /** The items in the queue (queued and claimed) in review order. */
  list(page?: Page): Promise<readonly ReviewEntry[]>;
  depth(): Promise<number>;
  mode(): Promise<QueueMode>;
  /** The feedback tuner's attempt limit for new runs. */
  currentLimit(): Promise<number>;
  stats(): Promise<ReviewStats>;
}
