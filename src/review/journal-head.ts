import { chainHash, GENESIS } from '../core/hash-chain.js';
import { asker, type Steps } from './drive.js';
import type { QueueStore } from './queue-tables.js';

/** The review journal's first `count` entries, as the ledger head covers them. */
export interface JournalPrefix {
  /** Entries the prefix covers. */
  readonly count: number;
  /** The chain hash after those entries, recomputed from their bodies (`GENESIS` for none). */
  readonly hash: string;
  /** Entries the journal holds. */
  readonly total: number;
}

const PAGE = 500;
const ask = asker<QueueStore>();

/**
 * The hash of the journal's first `count` entries (all of them when `count` is not given), recomputed
 * from the stored bodies in `seq` order as `verify` chains them: a stored hash is not trusted, so an
 * entry rewritten with every later hash recomputed still changes it. Streamed, a page at a time.
 */
export function* journalPrefix(count?: number): Steps<QueueStore, JournalPrefix> {
  let hash = GENESIS;
  let covered = 0;
  let total = 0;
  let after = -1;
  for (;;) {
    const page = yield* ask((store) => store.journal(after, PAGE));
    for (const row of page) {
      if (count === undefined || covered < count) {
        hash = chainHash(hash, row.body);
        covered += 1;
      }
      total += 1;
      after = row.seq;
    }
    // A short page is the journal's end.
    if (page.length < PAGE) return { count: covered, hash, total };
  }
}
