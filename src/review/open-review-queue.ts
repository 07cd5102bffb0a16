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
