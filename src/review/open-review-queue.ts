import type { ReviewQueueOptions } from './config.js';
import type { ReviewQueue } from './review-queue.js';

/**
 * Opens the review queue where the ledger is (see `openLedger`): a `postgres://` / `postgresql://` URL,
 * whose optional `?schema=` names the ledger's schema, or a SQLite file path. The adapter is loaded on
 * demand, so opening a SQLite queue never loads `pg`.
 * @example
 * const queue = await openReviewQueue('postgres://redline@db/redline?schema=team_a');
 */
export async function openReviewQueue(location: string, options: ReviewQueueOptions = {}): Promise<ReviewQueue> {
  if (typeof location !== 'string' || location.length === 0) throw new TypeError(`Expected a SQLite file or a postgres:// URL, got ${JSON.stringify(location)}`);
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
 * Opens the review queue at a ledger's location only when one was created there (its state table
 * exists): for commands that read, such as `redline ledger verify`, which must not create one.
 */
export async function openExistingReviewQueue(location: string): Promise<ReviewQueue | undefined> {
  if (/^postgres(ql)?:\/\//.test(location)) {
    const { openPgPool } = await import('../ledger/postgres/pg-pool.js');
    const url = new URL(location);
    const schema = url.searchParams.get('schema') ?? 'redline';
    url.searchParams.delete('schema');
    const pool = await openPgPool(url.toString(), 1);
    try {
      const { rows } = await pool.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [`"${schema.replace(/"/g, '""')}".review_state`]);
      if (rows[0]?.found === null || rows[0]?.found === undefined) return undefined;
    } finally {
      await pool.end();
    }
    return openReviewQueue(location);
  }
  const { existsSync } = await import('node:fs');
  if (location === ':memory:' || !existsSync(location)) return undefined;
  const { openSqliteFile } = await import('../ledger/sqlite/sqlite-database.js');
  const db = await openSqliteFile(location);
  try {
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'review_state'").get() === undefined) return undefined;
  } finally {
    db.close();
  }
  return openReviewQueue(location);
}
