import type { QueueAdmin } from './queue-admin.js';
import type { QueueAudit } from './queue-audit.js';
import type { ReviewerQueue } from './reviewer-queue.js';

export type { EnqueueResult, ReviewStats, VerdictResult, ReviewerQueue } from './reviewer-queue.js';
export type { QueueAdmin } from './queue-admin.js';
export type { QueueAudit } from './queue-audit.js';
export type {
  ClaimOptions,
  DroppedItem,
  EnqueueOptions,
  LogPage,
  Page,
  ReviewClaim,
  ReviewEntry,
  ReviewItem,
  ReviewStatus,
  Verdict,
  VerdictDecision,
  VerdictInput,
} from './types.js';

/**
 * The whole human review queue (docs/review.md), as an opener returns it: what a reviewer does
 * ({@link ReviewerQueue}), what an administrator does ({@link QueueAdmin}), what an auditor reads
 * ({@link QueueAudit}), and closing it. Who only works the queue takes the narrowest view; whoever opened
 * it closes it. Backends keep the same contract (`test/review/contract.ts`); adapters open it on the
 * ledger's own storage.
 */
export interface ReviewQueue extends ReviewerQueue, QueueAdmin, QueueAudit {
  close(): Promise<void>;
}
