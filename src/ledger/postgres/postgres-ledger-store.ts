import { inTransaction, type PgClient, type PgPool } from '../../db/postgres/pg-pool.js';
import type { RunPage } from '../history.js';
import type { LedgerTally, RunRow, StoredRecord, StoredRun } from '../ledger.js';
import type { LedgerStore, NewRun, PageReader } from '../ledger-store.js';
import type { RunCondition, RunQuery } from '../run-query.js';
import { ledgerSql, type LedgerDialect, type LedgerSql } from '../sql-statements.js';
import { postgresDialect } from './postgres-dialect.js';
import { recordValues, runValues, toRun, toStored, toSummaries, type RecordDbRow, type RunDbRow, type ScoreDbRow } from '../sql-rows.js';
import { toTally, type SpreadDbRow, type TallyDbRow } from '../tally-rows.js';

type Queryable = Pick<PgClient, 'query'>;

/**
 * The PostgreSQL ledger's rows, over a pool: a statement takes any connection, a transaction or a
 * snapshot holds one; the triggers refuse what breaks a chain.
 */
export class PostgresLedgerStore implements LedgerStore {
  readonly #pool: PgPool;
  readonly #owned: boolean;
  readonly #dialect: LedgerDialect;
  readonly #sql: LedgerSql;

  /** A store on a migrated schema (quoted); `owned`: the pool was opened for it and ends with it. */
  constructor(pool: PgPool, owned: boolean, schema: string) {
    this.#pool = pool;
    this.#owned = owned;
    this.#dialect = postgresDialect(schema);
    this.#sql = ledgerSql(this.#dialect);
  }

  insertRun(run: NewRun, records: readonly StoredRecord[]): Promise<void> {
    return inTransaction(this.#pool, async (client) => {
      await client.query(this.#sql.insertRun, runValues(run));
      for (const row of records) await client.query(this.#sql.insertRecord, recordValues(row));
    });
  }

  async insertRecord(record: StoredRecord): Promise<void> {
    await this.#pool.query(this.#sql.insertRecord, recordValues(record));
  }

  run(runId: string): Promise<RunRow | undefined> {
    return this.#run(this.#pool, runId);
  }

  records(runId: string): Promise<readonly StoredRecord[]> {
    return this.#records(this.#pool, runId);
  }

  readRun(runId: string): Promise<StoredRun | undefined> {
    return inTransaction(this.#pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const run = await this.#run(client, runId);
      return run === undefined ? undefined : { run, records: await this.#records(client, runId) };
    });
  }

  async runs(query: RunQuery): Promise<readonly RunRow[]> {
    return (await this.#runRows(this.#pool, query)).map(toRun);
  }

  async lastRecords(runIds: readonly string[]): Promise<readonly StoredRecord[]> {
    return (await this.#pool.query<RecordDbRow>(this.#sql.lastRecords, [this.#dialect.ids(runIds)])).rows.map(toStored);
  }

  /** Both aggregates in one REPEATABLE READ READ ONLY transaction: one snapshot. */
  tally(where: readonly RunCondition[]): Promise<LedgerTally> {
    return inTransaction(this.#pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const [groups, spread] = [this.#sql.tallyGroups(where), this.#sql.scoreSpread(where)];
      const groupRows = (await client.query<TallyDbRow>(groups.sql, groups.params)).rows;
      const [spreadRow] = (await client.query<SpreadDbRow>(spread.sql, spread.params)).rows;
      return toTally(groupRows, spreadRow);
    });
  }

  async sealedCount(where: readonly RunCondition[]): Promise<number> {
    const { sql, params } = this.#sql.sealedCount(where);
    return Number((await this.#pool.query<{ n: string }>(sql, params)).rows[0]?.n ?? 0);
  }

  async latestSealed(missionId: string, planHash: string): Promise<RunRow | undefined> {
    const row = (await this.#pool.query<RunDbRow>(this.#sql.latestSealed, [missionId, planHash])).rows[0];
    return row === undefined ? undefined : toRun(row);
  }

  /**
   * Every page on one connection, in one REPEATABLE READ READ ONLY transaction: one snapshot for the whole
   * stream, two queries a page (the runs, then their records), not a transaction per run.
   */
  async snapshot(): Promise<PageReader> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    } catch (error) {
      client.release(true);
      throw error;
    }
    return {
      page: async (query, read): Promise<RunPage> => {
        const rows = await this.#runRows(client, query);
        const runs = rows.map(toRun);
        if (read === 'runs' || runs.length === 0) return { runs, records: [] };
        const ids = this.#dialect.ids(runs.map((run) => run.runId));
        const records = (await client.query<RecordDbRow>(this.#sql.pageRecords, [ids])).rows.map(toStored);
        if (read === 'records') return { runs, records };
        return { runs, records, summaries: toSummaries(rows, (await client.query<ScoreDbRow>(this.#sql.pageScores, [ids])).rows) };
      },
      async end(failed) {
        // Read only: ending it either way changes nothing; a connection whose query failed is not reused.
        await client.query(failed ? 'ROLLBACK' : 'COMMIT').catch(() => undefined);
        client.release(failed);
      },
    };
  }

  isDuplicateKey(error: unknown): boolean {
    return (error as { code?: string })?.code === '23505';
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#pool.end();
  }

  async #run(on: Queryable, runId: string): Promise<RunRow | undefined> {
    const row = (await on.query<RunDbRow>(this.#sql.selectRun, [runId])).rows[0];
    return row === undefined ? undefined : toRun(row);
  }

  async #records(on: Queryable, runId: string): Promise<StoredRecord[]> {
    return (await on.query<RecordDbRow>(this.#sql.selectRecords, [runId])).rows.map(toStored);
  }

  async #runRows(on: Queryable, query: RunQuery): Promise<RunDbRow[]> {
    const { sql, params } = this.#sql.runs(query);
    return (await on.query<RunDbRow>(sql, params)).rows;
  }
}
