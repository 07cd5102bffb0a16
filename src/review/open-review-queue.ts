import type { ReviewQueueOptions } from './config.js';
import { GENESIS } from '../core/hash-chain.js';
import { driveAsync, driveSync, type Steps } from './drive.js';
import type { JournalVerification } from './journal.js';
import type { JournalPrefix } from './journal-head.js';
import type { JournalSignatureOptions } from './journal-signature.js';
import type { QueueStore } from './queue-tables.js';
import type { ReviewQueue } from './review-queue.js';

/**
 * Opens the review queue where the ledger is (see `openLedger`): a `postgres://` / `postgresql://` URL,
 * whose optional `?schema=` names the ledger's schema, or a SQLite file path. The adapter is loaded on
 * demand, so opening a SQLite queue never loads `pg`.
 * @example
 * const queue = await openReviewQueue('postgres://redline@db/redline?schema=team_a');
 */
export async function openReviewQueue(location: string, options: ReviewQueueOptions = {}): Promise<ReviewQueue> {
  if (typeof location !== 'string' || location.length === 0)
    throw new TypeError(`Expected a SQLite file or a postgres:// URL, got ${JSON.stringify(location)}`);
  if (/^postgres(ql)?:\/\//.test(location)) {
    const { PostgresReviewQueue } = await import('./postgres/postgres-review-queue.js');
    const url = new URL(location);
    const schema = url.searchParams.get('schema');
    url.searchParams.delete('schema');
    return PostgresReviewQueue.open({ ...options, connection: url.toString(), ...(schema === null ? {} : { schema }) });
  }
  const { SqliteReviewQueue } = await import('./sqlite/sqlite-review-queue.js');
  return SqliteReviewQueue.open({ ...options, database: location });
}

/**
 * Runs `steps` over the stored review queue at a ledger's location without writing anything (no
 * migration, no settings), in one read-only snapshot even while reviewers append. Undefined when the
 * ledger holds no queue journal (no queue, or one created before the journal existed).
 */
async function readStoredQueue<T>(location: string, steps: () => Steps<QueueStore, T>): Promise<T | undefined> {
  if (/^postgres(ql)?:\/\//.test(location)) {
    const { openPgPool } = await import('../db/postgres/pg-pool.js');
    const { postgresQueueStore } = await import('./postgres/stored-queue.js');
    const url = new URL(location);
    const schema = `"${(url.searchParams.get('schema') ?? 'redline').replace(/"/g, '""')}"`;
    url.searchParams.delete('schema');
    const pool = await openPgPool(url.toString(), 1);
    const client = await pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows: found } = await client.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [
        `${schema}.review_journal`,
      ]);
      if (found[0]?.found === null || found[0]?.found === undefined) return undefined;
      return await driveAsync(steps(), postgresQueueStore(client, schema));
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      await pool.end();
    }
  }
  const { existsSync } = await import('node:fs');
  if (location === ':memory:' || !existsSync(location)) return undefined;
  const [{ openSqliteReadOnly }, { sqliteQueueStore }] = await Promise.all([
    import('../db/sqlite/sqlite-database.js'),
    import('./sqlite/stored-queue.js'),
  ]);
  const db = await openSqliteReadOnly(location);
  try {
    return db.transaction(() => {
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'review_journal'").get() === undefined) return undefined;
      return driveSync(steps(), sqliteQueueStore(db));
    })();
  } finally {
    db.close();
  }
}

/**
 * Verifies the review queue at a ledger's location without writing anything: its journal's chain, then
 * its tables against the journal, streamed (see `verifyQueue`). For `redline ledger verify`, which may
 * run on a read-only copy or role. With `signatures`, each entry's signature is checked too. Undefined when the ledger holds no queue journal.
 */
export async function verifyStoredJournal(
  location: string,
  signatures?: JournalSignatureOptions,
): Promise<JournalVerification | undefined> {
  // Loaded here: the journal entries' schemas (zod) are not what `redline --help` should load.
  const { verifyQueue } = await import('./queue-tables.js');
  return readStoredQueue(location, () => verifyQueue(signatures));
}

/**
 * The hash of the stored journal's first `count` entries (all when not given), for the ledger head;
 * an empty prefix when the ledger holds no queue journal.
 */
export async function storedJournalPrefix(location: string, count?: number): Promise<JournalPrefix> {
  const { journalPrefix } = await import('./journal-head.js');
  return (await readStoredQueue(location, () => journalPrefix(count))) ?? { count: 0, hash: GENESIS, total: 0 };
}

/**
 * Whether the ledger at `location` holds a review queue (its `review_state` table), found without creating
 * or migrating anything: `redline run` hands runs to a queue the ledger has even without `--review`.
 */
export async function reviewQueueExists(location: string): Promise<boolean> {
  if (/^postgres(ql)?:\/\//.test(location)) {
    const { openPgPool } = await import('../db/postgres/pg-pool.js');
    const url = new URL(location);
    const schema = `"${(url.searchParams.get('schema') ?? 'redline').replace(/"/g, '""')}"`;
    url.searchParams.delete('schema');
    const pool = await openPgPool(url.toString(), 1);
    try {
      const { rows } = await pool.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [`${schema}.review_state`]);
      return rows[0]?.found !== null && rows[0]?.found !== undefined;
    } finally {
      await pool.end();
    }
  }
  const { existsSync } = await import('node:fs');
  if (location === ':memory:' || !existsSync(location)) return false;
  const { openSqliteReadOnly } = await import('../db/sqlite/sqlite-database.js');
  const db = await openSqliteReadOnly(location);
  try {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'review_state'").get() !== undefined;
  } finally {
    db.close();
  }
}
