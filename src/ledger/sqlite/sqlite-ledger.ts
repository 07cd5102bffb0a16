import { LedgerError } from '../../errors/ledger-error.js';
import { refuseNewer } from '../../db/refuse-newer.js';
import { applyMigrations } from '../../db/sqlite/apply-migrations.js';
import { immediate, openSqlite, openSqliteReadOnly, type SqliteDatabase, type SqliteSource } from '../../db/sqlite/sqlite-database.js';
import { ChainedLedger } from '../chained-ledger.js';
import { MIGRATIONS, type MigrationVersion } from '../migrations.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { reclaimSpace } from './reclaim-space.js';
import { SqliteLedgerStore } from './sqlite-ledger-store.js';
import { sqlitePriorsStore } from './sqlite-priors-store.js';

export interface SqliteLedgerOptions {
  /** A database file (created with its folder when missing), an open database, or a factory for one. */
  readonly database: SqliteSource;
  /**
   * `full` makes every append durable before it returns (fsync on commit); `normal` survives a process
   * crash but may lose the last appends on power loss.
   * @default 'full'
   */
  readonly synchronous?: 'full' | 'normal' | 'off';
  /**
   * Open an existing ledger file to read it: a missing file is a `LedgerNotFoundError` (nothing is
   * created), a file that is not a redline database a `LedgerError`; a ledger at this schema version is
   * opened read-only (appends fail), a redline file without it (only a review queue, an earlier schema)
   * is migrated first.
   * @default false
   */
  readonly readOnly?: boolean;
}

/**
 * The embedded default ledger: one SQLite file in WAL mode, hash-chained records, seal enforced by
 * triggers. The one chained ledger over the SQLite store and priors; this class only opens them.
 */
export class SqliteLedger extends ChainedLedger {
  private constructor(db: SqliteDatabase, readOnly: boolean) {
    super(new SqliteLedgerStore(db, readOnly), sqlitePriorsStore(db));
  }

  /** Opens (and migrates) a SQLite ledger; with `readOnly`, opens an existing one as it is. */
  static async open({ database, synchronous = 'full', readOnly = false }: SqliteLedgerOptions): Promise<SqliteLedger> {
    if (readOnly) {
      if (typeof database !== 'string')
        throw new TypeError(`Expected a file path with readOnly, got ${typeof database === 'function' ? 'a factory' : 'an open database'}`);
      const db = await openSqliteReadOnly(database);
      let readable: 'ready' | 'migrate';
      try {
        readable = readableAs(db, database);
      } catch (error) {
        db.close();
        throw error;
      }
      if (readable === 'ready') return new SqliteLedger(db, true);
      // A redline file without the ledger's current tables (a queue alone, an earlier schema) gets them:
      // the file exists, so nothing is created that a mistyped path would leave behind.
      db.close();
    }
    return openSqlite(database, synchronous, (db) => {
      migrate(db);
      return new SqliteLedger(db, false);
    });
  }
}

/**
 * Whether an existing file opened read-only can be read as it is (`ready`), or is a redline file whose
 * ledger tables are missing or older (`migrate`: it holds only the review queue, no table at all, or an
 * earlier schema). Anything else — not a SQLite database, another program's database, a newer schema —
 * is one clear `LedgerError`.
 */
function readableAs(db: SqliteDatabase, file: string): 'ready' | 'migrate' {
  const problem = (message: string, cause?: unknown): LedgerError =>
    new LedgerError({ code: 'ledger.unreadable', runId: '', message: `${file} is not a ledger this redline can read: ${message}`, cause });
  let tables: Set<string>;
  let applied: Set<number>;
  try {
    tables = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name),
    );
    applied = new Set(
      tables.has('redline_migrations')
        ? (db.prepare('SELECT version FROM redline_migrations').all() as { version: number }[]).map((row) => row.version)
        : [],
    );
  } catch (error) {
    throw problem((error as Error).message, error);
  }
  if (!tables.has('redline_migrations')) {
    if (tables.size === 0 || tables.has('review_migrations')) return 'migrate';
    throw problem('it is a SQLite database without redline tables');
  }
  try {
    refuseNewer('redline_migrations', applied, MIGRATIONS);
  } catch (error) {
    throw problem((error as Error).message, error);
  }
  return MIGRATIONS.every((migration) => applied.has(migration.version)) ? 'ready' : 'migrate';
}

function migrate(db: SqliteDatabase): void {
  // IMMEDIATE takes the write lock first, so two processes opening a new file migrate it once.
  const applied = immediate(db, () =>
    applyMigrations(db, {
      table: 'redline_migrations',
      migrations: MIGRATIONS,
      sql: (version) => SQLITE_MIGRATIONS[version as MigrationVersion],
    }),
  );
  // Version 4 rebuilt `records`; a file created just now (version 1 applied too) had no rows to move.
  if (applied.includes(4) && !applied.includes(1)) reclaimSpace(db);
}
