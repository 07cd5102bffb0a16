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
