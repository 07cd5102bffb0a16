import type { Signer } from '../core/signature.js';
import { signJournalRows } from './journal-signature.js';
import type { QueueWrite, ReviewTx, TxStep } from './review-store.js';

/** `tx`, with every journal row it writes signed by `signer`. */
function signingTx(tx: ReviewTx, signer: Signer): ReviewTx {
  return {
    state: () => tx.state(),
    settings: () => tx.settings(),
    byRun: (runId) => tx.byRun(runId),
    lowest: (at) => tx.lowest(at),
    item: (itemId) => tx.item(itemId),
    recentVerdicts: (n) => tx.recentVerdicts(n),
    addReport: (report, at) => tx.addReport(report, at),
    recentReports: (n) => tx.recentReports(n),
    write: (change: QueueWrite) =>
      tx.write(
        change.journal === undefined
          ? change
          : { ...change, journal: { ...change.journal, rows: signJournalRows(change.journal.rows, signer) } },
      ),
  };
}

/**
 * A write transaction's steps with every journal row they write signed (docs/review.md, 'Signed
 * entries'): one place for every decision the queue journals, whatever step chained the rows.
 */
export function* signedSteps<T>(steps: TxStep<T>, signer: Signer | undefined): TxStep<T> {
  if (signer === undefined) return yield* steps;
  let next = steps.next();
  while (next.done !== true) {
    const question = next.value;
    next = steps.next(yield (tx) => question(signingTx(tx, signer)));
  }
  return next.value;
}
