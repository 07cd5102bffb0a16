import { LedgerError } from '../../errors/ledger-error.js';
import { refusal, toRun, toStored, type RecordDbRow, type RunDbRow } from '../sql-rows.js';
import { chainRecord, parseRecord } from '../chain.js';
import { GENESIS } from '../../core/hash-chain.js';
import { keysetPages, pageSizeOf, type PageKey, type RunPage } from '../history.js';
import type {
  Ledger,
  LedgerHead,
  LedgerRecord,
  RunFilter,
  RunRecord,
  RunRow,
  StoredRecord,
  StoredRun,
  StreamOptions,
  TaskPriors,
} from '../ledger.js';
import { pageQuery } from '../page-query.js';
import { refuseNewer } from '../../db/refuse-newer.js';
import { MIGRATIONS, type MigrationVersion } from '../migrations.js';
import { applyMigrations } from '../../db/sqlite/apply-migrations.js';
import { expectLearnable, learnedPriors, parsePriors, priorsFailure } from '../priors.js';
import { linkFields, openedRun } from '../run-row.js';
import { verifyRun } from '../verify.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { reclaimSpace } from './reclaim-space.js';
import {
  immediate,
  openSqlite,
  openSqliteReadOnly,
  type SqliteDatabase,
  type SqliteSource,
  type SqliteStatement,
} from '../../db/sqlite/sqlite-database.js';

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

/** The embedded default ledger: one SQLite file in WAL mode, hash-chained records, seal enforced by triggers. */
export class SqliteLedger implements Ledger {
  readonly #db: SqliteDatabase;
  readonly #heads = new Map<string, string>();
  readonly #insertRun: SqliteStatement;
  readonly #insertRecord: SqliteStatement;
  readonly #selectRun: SqliteStatement;
  readonly #selectLatestSealed: SqliteStatement;
  readonly #selectRecords: SqliteStatement;
  readonly #selectPageRecords: SqliteStatement;
  readonly #readOnly: boolean;
  readonly #selectPriors: SqliteStatement;
  readonly #upsertPriors: SqliteStatement;

  private constructor(db: SqliteDatabase, readOnly: boolean) {
    this.#db = db;
    this.#readOnly = readOnly;
    this.#insertRun = db.prepare(
      'INSERT INTO runs (run_id, mission_id, task_type, started_at, record_count, last_hash, plan_hash, resolves) VALUES (?, ?, ?, ?, 0, ?, ?, ?)',
    );
    this.#selectLatestSealed = db.prepare(
      'SELECT * FROM runs WHERE mission_id = ? AND plan_hash = ? AND sealed = 1 ORDER BY started_at DESC, run_id DESC LIMIT 1',
    );
    this.#insertRecord = db.prepare('INSERT INTO records (run_id, seq, type, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)');
    this.#selectRun = db.prepare('SELECT * FROM runs WHERE run_id = ?');
    this.#selectRecords = db.prepare('SELECT * FROM records WHERE run_id = ? ORDER BY seq');
    this.#selectPageRecords = db.prepare('SELECT * FROM records WHERE run_id IN (SELECT value FROM json_each(?)) ORDER BY run_id, seq');
    this.#selectPriors = db.prepare('SELECT entry FROM adaptive_priors WHERE task_type = ?');
    this.#upsertPriors = db.prepare(
      'INSERT INTO adaptive_priors (task_type, entry, updated_at) VALUES (?, ?, ?) ON CONFLICT (task_type) DO UPDATE SET entry = excluded.entry, updated_at = excluded.updated_at',
    );
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

  async append(record: LedgerRecord): Promise<StoredRecord> {
    try {
      if (record.seq === 0) {
        const stored = chainRecord(GENESIS, record);
        const run = openedRun(record, stored);
        this.#db.transaction(() => {
          this.#insertRun.run(run.runId, run.missionId, run.taskType, run.startedAt, GENESIS, run.planHash ?? null, run.resolves ?? null);
          this.#insertRecord.run(stored.runId, stored.seq, stored.type, stored.body, stored.prevHash, stored.hash);
        })();
        this.#heads.set(record.runId, stored.hash);
        return stored;
      }
      const prevHash = this.#heads.get(record.runId) ?? (this.#selectRun.get(record.runId) as RunDbRow | undefined)?.last_hash ?? GENESIS;
      const stored = chainRecord(prevHash, record);
      this.#insertRecord.run(stored.runId, stored.seq, stored.type, stored.body, stored.prevHash, stored.hash);
      if (record.type === 'run.sealed') this.#heads.delete(record.runId);
      else this.#heads.set(record.runId, stored.hash);
      return stored;
    } catch (error) {
      this.#heads.delete(record.runId);
      if (error instanceof LedgerError) throw error;
      return refusal(error, record.runId, /UNIQUE constraint/.test((error as Error)?.message ?? ''));
    }
  }

  async head(runId: string): Promise<LedgerHead> {
    const row = this.#selectRun.get(runId) as RunDbRow | undefined;
    return { count: row?.record_count ?? 0, sealed: row !== undefined && toRun(row).sealed };
  }

  async records(runId: string): Promise<readonly RunRecord[]> {
    return (await this.stored(runId)).map(parseRecord);
  }

  async stored(runId: string): Promise<readonly StoredRecord[]> {
    return (this.#selectRecords.all(runId) as RecordDbRow[]).map(toStored);
  }

  async storedRun(runId: string): Promise<StoredRun | undefined> {
    // One read transaction: its snapshot holds from the first read to the last.
    return this.#db.transaction(() => {
      const row = this.#selectRun.get(runId) as RunDbRow | undefined;
      return row === undefined ? undefined : { run: toRun(row), records: (this.#selectRecords.all(runId) as RecordDbRow[]).map(toStored) };
    })();
  }

  async runs(filter: RunFilter = {}): Promise<readonly RunRow[]> {
    const conditions: [string, unknown][] = [];
    if (filter.unsealed === true) conditions.push(['sealed = ?', 0]);
    if (filter.taskType !== undefined) conditions.push(['task_type = ?', filter.taskType]);
    if (filter.since !== undefined) conditions.push(['started_at >= ?', filter.since]);
    if (filter.runId !== undefined) conditions.push(['run_id = ?', filter.runId]);
    if (filter.missionId !== undefined) conditions.push(['mission_id = ?', filter.missionId]);
    if (filter.planHash !== undefined) conditions.push(['plan_hash = ?', filter.planHash]);
    if (filter.resolves !== undefined) conditions.push(['resolves = ?', filter.resolves]);
    const where = conditions.map(([condition]) => condition);
    const params = conditions.map(([, value]) => value);
    const sql = `SELECT * FROM runs${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY started_at, run_id`;
    return (this.#db.prepare(sql).all(...params) as RunDbRow[]).map(toRun);
  }

  async latestSealed({ missionId, planHash }: { missionId: string; planHash: string }): Promise<RunRow | undefined> {
    const row = this.#selectLatestSealed.get(missionId, planHash) as RunDbRow | undefined;
    return row === undefined ? undefined : toRun(row);
  }

  streamHistory(options: StreamOptions = {}): AsyncGenerator<StoredRun> {
    return this.#stream(options, true);
  }

  async *streamRuns(options: StreamOptions = {}): AsyncGenerator<RunRow> {
    for await (const { run } of this.#stream(options, false)) yield run;
  }

  /**
   * Keyset pages, each page's runs and records read in one read transaction (they always agree). A ledger
   * opened read-only also holds one read transaction around the whole stream, so the stream is one
   * snapshot; a writable one does not, since this connection's appends would join it and stay uncommitted
   * until the stream ends: a run it appends while the stream is read shows up whole or not at all.
   */
  async *#stream(options: StreamOptions, withRecords: boolean): AsyncGenerator<StoredRun> {
    const pageSize = pageSizeOf(options);
    const db = this.#db;
    const snapshot = this.#readOnly && !db.inTransaction;
    const page = db.transaction((after: PageKey | undefined, limit: number): RunPage => {
      const query = pageQuery({ filter: options.filter, after, limit, placeholder: () => '?', unsealed: 0 });
      const runs = (db.prepare(`SELECT * FROM runs${query.sql}`).all(...query.params) as RunDbRow[]).map(toRun);
      if (!withRecords || runs.length === 0) return { runs, records: [] };
      const ids = JSON.stringify(runs.map((run) => run.runId));
      return { runs, records: (this.#selectPageRecords.all(ids) as RecordDbRow[]).map(toStored) };
    });
    if (snapshot) db.exec('BEGIN');
    try {
      yield* keysetPages({ pageSize, page: async (after, limit) => page(after, limit) });
    } finally {
      if (snapshot && db.inTransaction) db.exec('COMMIT');
    }
  }

  async import(run: RunRow, records: readonly StoredRecord[]): Promise<void> {
    const check = verifyRun(run, records);
    if (!check.ok)
      throw new LedgerError({
        code: 'ledger.import_broken',
        runId: run.runId,
        message: `run ${run.runId} does not verify: ${check.firstBad?.detail}`,
      });
    if (this.#selectRun.get(run.runId) !== undefined)
      throw new LedgerError({ code: 'ledger.exists', runId: run.runId, message: `run ${run.runId} is already in this ledger` });
    // The link columns come from the chained `run.started` record, not from the exported row.
    const link = records[0] === undefined ? {} : linkFields(parseRecord(records[0]));
    try {
      this.#db.transaction(() => {
        this.#insertRun.run(run.runId, run.missionId, run.taskType, run.startedAt, GENESIS, link.planHash ?? null, link.resolves ?? null);
        for (const row of records) this.#insertRecord.run(row.runId, row.seq, row.type, row.body, row.prevHash, row.hash);
      })();
    } catch (error) {
      refusal(error, run.runId, /UNIQUE constraint/.test((error as Error)?.message ?? ''));
    }
  }

  async priors(taskType: string): Promise<TaskPriors | undefined> {
    let row: { entry: string } | undefined;
    try {
      row = this.#selectPriors.get(taskType) as { entry: string } | undefined;
    } catch (error) {
      throw priorsFailure(error, taskType);
    }
    return row === undefined ? undefined : parsePriors(taskType, row.entry);
  }

  async learn(taskType: string, scores: readonly number[]): Promise<void> {
    expectLearnable(taskType, scores);
    try {
      // IMMEDIATE takes the write lock before the read, so a learner in another process waits (busy_timeout)
      // and then reads what this one wrote: no update is lost.
      this.#db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw priorsFailure(error, taskType);
    }
    try {
      const row = this.#selectPriors.get(taskType) as { entry: string } | undefined;
      const entry = learnedPriors(taskType, row === undefined ? undefined : parsePriors(taskType, row.entry), scores);
      this.#upsertPriors.run(taskType, JSON.stringify(entry), Date.now());
      this.#db.exec('COMMIT');
    } catch (error) {
      // A failed COMMIT may have ended the transaction already.
      if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
      throw priorsFailure(error, taskType);
    }
  }

  async close(): Promise<void> {
    this.#db.close();
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
