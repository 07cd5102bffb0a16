import type { Signer } from '../core/signature.js';
import type { DeferredHandoff, Handoff } from '../handoff/handoff.js';
import { budgetAlerts } from '../review/alerts.js';
import { openReviewQueue } from '../review/open-review-queue.js';
import type { ReviewQueue } from '../review/review-queue.js';
import type { ReviewerQueue } from '../review/reviewer-queue.js';

/** What a command's handoff takes from its flags. */
export interface ReviewFlags {
  /** The share of `sampled` runs enqueued (`--sample-rate`). */
  readonly sampleRate?: number;
  /** Where budget-cap alerts are POSTed (`--alert-webhook`). */
  readonly alertWebhook?: string;
}

/** The handoff to an open queue; budget-cap alerts go to `progress` (stderr) and the webhook. */
export function reviewHandoff(queue: ReviewerQueue, flags: ReviewFlags, { progress }: { progress: (line: string) => void }): Handoff {
  const alerts = budgetAlerts({
    queue,
    logger: { warn: progress },
    ...(flags.alertWebhook === undefined ? {} : { webhook: { url: flags.alertWebhook } }),
  });
  return { queue, alerts, ...(flags.sampleRate === undefined ? {} : { sampleRate: flags.sampleRate }) };
}

/** A deferred handoff to the queue in a ledger's storage, and what it opened. */
export interface QueueOnFirstNeed {
  readonly handoff: DeferredHandoff;
  /** The run whose seal opened the queue (and so created it, when the ledger had none), once one did. */
  readonly openedBy: () => string | undefined;
  /** Closes the queue if it was opened. */
  readonly close: () => Promise<void>;
}

/**
 * The review queue of the ledger at `location` as a deferred handoff (docs/review.md, 'The queue by
 * default'): opened — created, when the ledger has none — by the first seal that must go to review, once
 * for every run that shares it. With `signer`, the journal entries it appends are signed (the run's key).
 */
export function queueOnFirstNeed(
  location: string,
  flags: ReviewFlags,
  output: { progress: (line: string) => void },
  signer?: Signer,
): QueueOnFirstNeed {
  let opening: Promise<Handoff> | undefined;
  let queue: ReviewQueue | undefined;
  let openedBy: string | undefined;
  return {
    handoff: {
      open: (runId) => {
        openedBy ??= runId;
        return (opening ??= openReviewQueue(location, signer === undefined ? {} : { signer }).then((opened) => {
          queue = opened;
          return reviewHandoff(opened, flags, output);
        }));
      },
      ...(flags.sampleRate === undefined ? {} : { sampleRate: flags.sampleRate }),
    },
    openedBy: () => openedBy,
    close: async () => {
      // A queue still opening is closed once it is open.
      await opening?.catch(() => undefined);
      await queue?.close();
    },
  };
}
