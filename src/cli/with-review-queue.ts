import { clean } from './terminal-text.js';
import { displayLocation, expectLedgerAt, ledgerLocation } from '../ledger/open-ledger.js';
import { findSigner } from '../ledger/signing-key.js';
import type { ReviewQueueOptions } from '../review/config.js';
import type { ReviewQueue } from '../review/review-queue.js';
import type { Signer } from '../core/signature.js';

/**
 * Opens the review queue in the ledger a command names (flag, environment, or `.redline/redline.db` here)
 * for `work`, signing the journal entries it appends when the ledger's key is found (`journalSigner`). The ledger must exist unless the command `creates` it (settings): a mistyped path is an error.
 */
export async function withReviewQueue<T>(
  explicit: string | undefined,
  work: (queue: ReviewQueue, name: string) => Promise<T>,
  options: ReviewQueueOptions = {},
  { creates = false }: { creates?: boolean } = {},
): Promise<T> {
  const location = ledgerLocation(explicit, process.cwd());
  if (!creates) await expectLedgerAt(location);
  // Loaded when a command opens the queue, not when the CLI defines its commands (`redline --help`).
  const { openReviewQueue } = await import('../review/open-review-queue.js');
  const queue = await openReviewQueue(location, { ...(await journalSigner(location)), ...options });
  try {
    return await work(queue, clean(displayLocation(location)));
  } finally {
    await queue.close();
  }
}

/**
 * The signer a review queue writer (review commands, `review serve`, `admit --force`) signs journal entries
 * with: `$REDLINE_SIGNING_KEY`, else the ledger's local key when a run created it; none without either.
 */
export async function journalSigner(location: string): Promise<{ signer?: Signer }> {
  const signer = await findSigner({ location });
  return signer === undefined ? {} : { signer };
}
