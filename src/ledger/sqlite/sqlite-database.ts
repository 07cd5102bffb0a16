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
