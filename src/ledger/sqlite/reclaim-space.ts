import { PAGE_SIZE, type SqliteDatabase } from '../../db/sqlite/sqlite-database.js';

/**
 * Gives back the pages a migration freed by rebuilding a table (schema version 4 rewrites `records`):
 * VACUUM rebuilds the file without them. Call it after the migration committed; it takes the write lock
 * like any writer.
 *
 * When no other connection has the file open, the file also moves to {@link PAGE_SIZE} pages, which a
 * WAL file cannot do: it leaves WAL for the VACUUM and switches back. With other connections open it
 * keeps its page size, so they are never refused.
 */
export function reclaimSpace(db: SqliteDatabase): void {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  // Leaving WAL needs the file to itself: ask once, without waiting for the others to close.
  db.pragma('busy_timeout = 0');
  let alone: boolean;
  try {
    alone = db.pragma('journal_mode = DELETE', { simple: true }) === 'delete';
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    alone = false;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
  if (!alone) {
    db.exec('VACUUM');
    return;
  }
  try {
    db.pragma(`page_size = ${PAGE_SIZE}`);
    db.exec('VACUUM');
  } finally {
    db.pragma('journal_mode = WAL');
  }
}
