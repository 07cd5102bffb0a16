import type { SqliteDatabase, SqliteStatement } from '../../db/sqlite/sqlite-database.js';
import type { RunPage } from '../history.js';
import type { LedgerTally, RunRow, StoredRecord, StoredRun } from '../ledger.js';
import type { LedgerStore, NewRun, PageRead, PageReader } from '../ledger-store.js';
import type { RunCondition, RunQuery } from '../run-query.js';
import { ledgerSql } from '../sql-statements.js';
import { recordValues, runValues, toRun, toStored, toSummaries, type RecordDbRow, type RunDbRow, type ScoreDbRow } from '../sql-rows.js';
import { toTally, type SpreadDbRow, type TallyDbRow } from '../tally-rows.js';
import { SQLITE_DIALECT } from './sqlite-dialect.js';

const SQL = ledgerSql(SQLITE_DIALECT);

/**
 * The SQLite ledger's rows, on one connection with its statements prepared once. better-sqlite3 answers
 * at once, so each method runs without yielding; the triggers refuse what breaks a chain.
 */
export class SqliteLedgerStore implements LedgerStore {
  readonly #db: SqliteDatabase;
  readonly #readOnly: boolean;
  readonly #insertRun: SqliteStatement;
  readonly #insertRecord: SqliteStatement;
  readonly #selectRun: SqliteStatement;
  readonly #selectRecords: SqliteStatement;
  readonly #latestSealed: SqliteStatement;
  readonly #pageRecords: SqliteStatement;
  readonly #lastRecords: SqliteStatement;
  readonly #pageScores: SqliteStatement;
  readonly #insertRunTx: (run: NewRun, records: readonly StoredRecord[]) => void;
  readonly #readRunTx: (runId: string) => StoredRun | undefined;
  readonly #pageTx: (query: RunQuery, read: PageRead) => RunPage;
  readonly #tallyTx: (where: readonly RunCondition[]) => LedgerTally;

  /** A store on a migrated database; `readOnly` when it was opened to read (see `snapshot`). */
  constructor(db: SqliteDatabase, readOnly: boolean) {
    this.#db = db;
    this.#readOnly = readOnly;
    this.#insertRun = db.prepare(SQL.insertRun);
    this.#insertRecord = db.prepare(SQL.insertRecord);
    this.#selectRun = db.prepare(SQL.selectRun);
    this.#selectRecords = db.prepare(SQL.selectRecords);
    this.#latestSealed = db.prepare(SQL.latestSealed);
    this.#pageRecords = db.prepare(SQL.pageRecords);
    this.#lastRecords = db.prepare(SQL.lastRecords);
    this.#pageScores = db.prepare(SQL.pageScores);
    this.#insertRunTx = db.transaction((run: NewRun, records: readonly StoredRecord[]) => {
      this.#insertRun.run(...runValues(run));
      for (const row of records) this.#insertRecord.run(...recordValues(row));
    });
    // One read transaction: its snapshot holds from the first read to the last.
    this.#readRunTx = db.transaction((runId: string) => {
      const run = this.#run(runId);
      return run === undefined ? undefined : { run, records: this.#records(runId) };
    });
    this.#pageTx = db.transaction((query: RunQuery, read: PageRead): RunPage => {
      const rows = this.#runRows(query);
      const runs = rows.map(toRun);
      if (read === 'runs' || runs.length === 0) return { runs, records: [] };
      const ids = SQLITE_DIALECT.ids(runs.map((run) => run.runId));
      const records = (this.#pageRecords.all(ids) as RecordDbRow[]).map(toStored);
      if (read === 'records') return { runs, records };
      return { runs, records, summaries: toSummaries(rows, this.#pageScores.all(ids) as ScoreDbRow[]) };
    });
    // Both aggregates from one snapshot.
    this.#tallyTx = db.transaction((where: readonly RunCondition[]): LedgerTally => {
      const [groups, spread] = [SQL.tallyGroups(where), SQL.scoreSpread(where)];
      return toTally(
        db.prepare(groups.sql).all(...groups.params) as TallyDbRow[],
        db.prepare(spread.sql).get(...spread.params) as SpreadDbRow,
      );
    });
  }

  async insertRun(run: NewRun, records: readonly StoredRecord[]): Promise<void> {
    this.#insertRunTx(run, records);
  }

  async insertRecord(record: StoredRecord): Promise<void> {
    this.#insertRecord.run(...recordValues(record));
  }

  async run(runId: string): Promise<RunRow | undefined> {
    return this.#run(runId);
  }

  async records(runId: string): Promise<readonly StoredRecord[]> {
    return this.#records(runId);
  }

  async readRun(runId: string): Promise<StoredRun | undefined> {
    return this.#readRunTx(runId);
  }

  async runs(query: RunQuery): Promise<readonly RunRow[]> {
    return this.#runRows(query).map(toRun);
  }

  async lastRecords(runIds: readonly string[]): Promise<readonly StoredRecord[]> {
    return (this.#lastRecords.all(SQLITE_DIALECT.ids(runIds)) as RecordDbRow[]).map(toStored);
  }

  async tally(where: readonly RunCondition[]): Promise<LedgerTally> {
    return this.#tallyTx(where);
  }

  async sealedCount(where: readonly RunCondition[]): Promise<number> {
    const { sql, params } = SQL.sealedCount(where);
    return (this.#db.prepare(sql).get(...params) as { n: number }).n;
  }

  async latestSealed(missionId: string, planHash: string): Promise<RunRow | undefined> {
    const row = this.#latestSealed.get(missionId, planHash) as RunDbRow | undefined;
    return row === undefined ? undefined : toRun(row);
  }

  /**
   * Each page is read in one read transaction (its runs and records agree). A store opened read-only also
   * holds one read transaction around all the pages, so they are one snapshot; a writable one does not,
   * since this connection's appends would join it and stay uncommitted until the reader ends: a run it
   * appends meanwhile shows up whole or not at all.
   */
  async snapshot(): Promise<PageReader> {
    const db = this.#db;
    const held = this.#readOnly && !db.inTransaction;
    if (held) db.exec('BEGIN');
    return {
      page: async (query, read) => this.#pageTx(query, read),
      async end() {
        if (held && db.inTransaction) db.exec('COMMIT');
      },
    };
  }

  isDuplicateKey(error: unknown): boolean {
    return /UNIQUE constraint/.test((error as Error)?.message ?? '');
  }

  async close(): Promise<void> {
    this.#db.close();
  }

  #run(runId: string): RunRow | undefined {
    const row = this.#selectRun.get(runId) as RunDbRow | undefined;
    return row === undefined ? undefined : toRun(row);
  }

  #records(runId: string): StoredRecord[] {
    return (this.#selectRecords.all(runId) as RecordDbRow[]).map(toStored);
  }

  #runRows(query: RunQuery): RunDbRow[] {
    const { sql, params } = SQL.runs(query);
    return this.#db.prepare(sql).all(...params) as RunDbRow[];
  }
}
