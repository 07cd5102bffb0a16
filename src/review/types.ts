import type { Brief } from '../core/brief.js';
import type { Verification } from '../core/outcome.js';

/**
 * The review queue's nouns (docs/review.md): items, claims, verdicts, drops and pages. A leaf: it imports
 * nothing of `src/review/`, so every policy, port and store can name them without an import cycle.
 */

/** A brief waiting for a person: what they need to decide; the raw trace stays in the ledger. */
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
  /** One of the configured labels (the five built in and any added). */
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

export interface ClaimOptions {
  /** How long the claim holds before the item returns to the queue. @default 900_000 (15 minutes) */
  readonly leaseMs?: number;
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

export interface Page {
  /** @default all */
  readonly limit?: number;
}

/** A page of a log, read from either end. */
export interface LogPage extends Page {
  /** The newest `limit` entries, newest first, instead of the oldest first. @default false */
  readonly newestFirst?: boolean;
}
