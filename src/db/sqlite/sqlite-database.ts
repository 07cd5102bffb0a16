import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { LedgerNotFoundError } from '../../errors/ledger-not-found-error.js';

/** The slice of a better-sqlite3 `Database` the ledger uses; any compatible instance works. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<F extends (...args: never[]) => unknown>(fn: F): F;
  readonly inTransaction: boolean;
  close(): unknown;
}

export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/**
 * The page size of a new file. Records of 1–3 KB leave about a quarter of each 4 KB page empty; on 8 KB
 * pages the file is about the size of its JSONL export. 16 KB pages save a few percent more but write
 * nearly twice the bytes per append. bench/sqlite-layout.ts measures the sizes.
 */
export const PAGE_SIZE = 8_192;

/** Where a SQLite ledger or review queue lives: a file (created with its folder when missing), an open database, or a factory for one. */
export type SqliteSource = string | SqliteDatabase | (() => SqliteDatabase | Promise<SqliteDatabase>);

/**
 * Opens `source` the way the ledger and the review queue share it: {@link PAGE_SIZE} pages when the file
 * is new, a 10 s busy timeout, WAL, the given durability (left as it is when undefined) and foreign keys
 * on; then runs `setUp` (migrations). A file opened here is closed again when anything fails; `owned`
 * says whether it was.
 */
export async function openSqlite<T>(
  source: SqliteSource,
  synchronous: 'full' | 'normal' | 'off' | undefined,
  setUp: (db: SqliteDatabase, owned: boolean) => T,
): Promise<T> {
  const owned = typeof source === 'string';
  let db: SqliteDatabase;
  if (typeof source === 'string') {
    if (source !== ':memory:') await mkdir(path.dirname(path.resolve(source)), { recursive: true });
    db = await openSqliteFile(source);
  } else {
    db = typeof source === 'function' ? await source() : source;
  }
  try {
    // Only a database without content takes it: an existing file keeps its page size.
    db.pragma(`page_size = ${PAGE_SIZE}`);
    db.pragma('busy_timeout = 10000');
    await switchToWal(db);
    if (synchronous !== undefined) db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
    db.pragma('foreign_keys = ON');
    return setUp(db, owned);
  } catch (error) {
    if (owned) db.close();
    throw error;
  }
}

/**
 * Opens an existing database file to read only: nothing is created (a missing path is a
 * {@link LedgerNotFoundError}), migrated or switched to WAL.
 */
export async function openSqliteReadOnly(file: string): Promise<SqliteDatabase> {
  if (
    !(await stat(file).then(
      (info) => info.isFile(),
      () => false,
    ))
  )
    throw new LedgerNotFoundError({ path: file });
  const { default: Database } = await import('better-sqlite3');
  // Read-write at the file level but refusing every write (query_only): a read-only connection could not
  // clean up the WAL's side files when it closes, and would leave ledger.db-wal and -shm behind.
  const db = new Database(file, { fileMustExist: true }) as unknown as SqliteDatabase;
  db.pragma('query_only = ON');
  db.pragma('busy_timeout = 10000');
  return db;
}

/** Opens a database file with better-sqlite3, loaded only when a SQLite ledger is used. */
export async function openSqliteFile(file: string): Promise<SqliteDatabase> {
  const { default: Database } = await import('better-sqlite3');
  return new Database(file) as unknown as SqliteDatabase;
}

/**
 * Switches a database to WAL. SQLite answers SQLITE_BUSY at once, without the busy handler, when two
 * processes switch a new file at the same moment: retry for a while with a short random pause.
 */
export async function switchToWal(db: SqliteDatabase): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    }
  }
}

/**
 * Runs `work` holding the write lock (`BEGIN IMMEDIATE`, taken first, so concurrent processes go one at
 * a time); commits, or rolls back on any error.
 */
export function immediate<T>(db: SqliteDatabase, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

/** How long a connection that waits off the event loop blocks in SQLite itself before it yields and tries again. */
export const SHORT_BUSY_TIMEOUT_MS = 25;

/**
 * Runs `work` (a write that takes the lock first, such as {@link immediate}); while another process holds
 * the lock it meets SQLITE_BUSY after the connection's short busy timeout, and is tried again after a
 * pause in which the event loop serves other requests, until `deadlineMs` has passed.
 */
export async function retryWhenBusy<T>(work: () => T, { deadlineMs = 10_000 }: { deadlineMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      return work();
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
    }
  }
}
