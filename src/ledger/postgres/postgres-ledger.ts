import { LedgerError } from '../../errors/ledger-error.js';
import { refusal, toRun, toStored, type RecordDbRow, type RunDbRow } from '../sql-rows.js';
import { chainRecord, parseRecord } from '../chain.js';
import { GENESIS } from '../../core/hash-chain.js';
import { keysetPages, pageSizeOf } from '../history.js';
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
import { MIGRATIONS, type MigrationVersion } from '../migrations.js';
import { applyMigrations } from '../../db/postgres/apply-migrations.js';
import { expectLearnable, learnedPriors, parsePriors, priorsFailure } from '../priors.js';
import { linkFields, openedRun } from '../run-row.js';
import { verifyRun } from '../verify.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { inTransaction, openPgPool, type PgClient, type PgPool } from '../../db/postgres/pg-pool.js';

export interface PostgresLedgerOptions {
  /** A connection URL (`postgres://…`), a `pg` Pool, or a factory for one. */
  readonly connection: string | PgPool | (() => PgPool | Promise<PgPool>);
  /** Schema holding the ledger's tables; created when missing. @default 'redline' */
  readonly schema?: string;
}

const EMPTY_PRIORS: TaskPriors = { runs: 0, gains: [] };

const quote = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;

/** The team ledger: PostgreSQL, hash-chained records, seal and append-only enforced by triggers. */
export class PostgresLedger implements Ledger {
  readonly #pool: PgPool;
  readonly #owned: boolean;
  readonly #heads = new Map<string, string>();
  readonly #sql: {
    insertRun: string;
    insertRecord: string;
    selectRun: string;
    latestSealed: string;
    selectRecords: string;
    pageRecords: string;
    runs: string;
    selectPriors: string;
    createPriors: string;
    lockPriors: string;
    updatePriors: string;
  };

  private constructor(pool: PgPool, owned: boolean, schema: string) {
    this.#pool = pool;
    this.#owned = owned;
    const S = quote(schema);
    this.#sql = {
      insertRun: `INSERT INTO ${S}.runs (run_id, mission_id, task_type, started_at, record_count, last_hash, plan_hash, resolves) VALUES ($1, $2, $3, $4, 0, $5, $6, $7)`,
      latestSealed: `SELECT * FROM ${S}.runs WHERE mission_id = $1 AND plan_hash = $2 AND sealed ORDER BY started_at DESC, run_id DESC LIMIT 1`,
      insertRecord: `INSERT INTO ${S}.records (run_id, seq, type, body, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6)`,
      selectRun: `SELECT * FROM ${S}.runs WHERE run_id = $1`,
      selectRecords: `SELECT * FROM ${S}.records WHERE run_id = $1 ORDER BY seq`,
      pageRecords: `SELECT * FROM ${S}.records WHERE run_id = ANY($1::text[]) ORDER BY run_id, seq`,
      runs: `SELECT * FROM ${S}.runs`,
      selectPriors: `SELECT entry FROM ${S}.adaptive_priors WHERE task_type = $1`,
      createPriors: `INSERT INTO ${S}.adaptive_priors (task_type, entry, updated_at) VALUES ($1, $2, $3) ON CONFLICT (task_type) DO NOTHING`,
      lockPriors: `SELECT entry FROM ${S}.adaptive_priors WHERE task_type = $1 FOR UPDATE`,
      updatePriors: `UPDATE ${S}.adaptive_priors SET entry = $2, updated_at = $3 WHERE task_type = $1`,
    };
  }

  /** Connects to (and migrates) a PostgreSQL ledger. */
  static async open({ connection, schema = 'redline' }: PostgresLedgerOptions): Promise<PostgresLedger> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new TypeError(`Expected a plain schema name (letters, digits, _), got "${schema}"`);
    const owned = typeof connection === 'string';
    const pool =
      typeof connection === 'string' ? await openPgPool(connection) : typeof connection === 'function' ? await connection() : connection;
    try {
      await migrate(pool, schema);
    } catch (error) {
      if (owned) await pool.end();
      throw error;
    }
    return new PostgresLedger(pool, owned, schema);
  }

  async append(record: LedgerRecord): Promise<StoredRecord> {
    try {
      if (record.seq === 0) {
        const stored = chainRecord(GENESIS, record);
        const run = openedRun(record, stored);
        await inTransaction(this.#pool, async (client) => {
          await client.query(this.#sql.insertRun, [
            run.runId,
            run.missionId,
            run.taskType,
            run.startedAt,
            GENESIS,
            run.planHash ?? null,
            run.resolves ?? null,
          ]);
          await insert(client, this.#sql.insertRecord, stored);
        });
        this.#heads.set(record.runId, stored.hash);
        return stored;
      }
      let prevHash = this.#heads.get(record.runId);
      if (prevHash === undefined)
        prevHash = (await this.#pool.query<RunDbRow>(this.#sql.selectRun, [record.runId])).rows[0]?.last_hash ?? GENESIS;
      const stored = chainRecord(prevHash, record);
      await insert(this.#pool, this.#sql.insertRecord, stored);
      if (record.type === 'run.sealed') this.#heads.delete(record.runId);
      else this.#heads.set(record.runId, stored.hash);
      return stored;
    } catch (error) {
      this.#heads.delete(record.runId);
      if (error instanceof LedgerError) throw error;
      return refusal(error, record.runId, (error as { code?: string }).code === '23505');
    }
  }

  async head(runId: string): Promise<LedgerHead> {
    const row = (await this.#pool.query<RunDbRow>(this.#sql.selectRun, [runId])).rows[0];
    return { count: row?.record_count ?? 0, sealed: row !== undefined && toRun(row).sealed };
  }

  async records(runId: string): Promise<readonly RunRecord[]> {
    return (await this.stored(runId)).map(parseRecord);
  }

  async stored(runId: string): Promise<readonly StoredRecord[]> {
    return (await this.#pool.query<RecordDbRow>(this.#sql.selectRecords, [runId])).rows.map(toStored);
  }

  async storedRun(runId: string): Promise<StoredRun | undefined> {
    return inTransaction(this.#pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const row = (await client.query<RunDbRow>(this.#sql.selectRun, [runId])).rows[0];
      if (row === undefined) return undefined;
      return { run: toRun(row), records: (await client.query<RecordDbRow>(this.#sql.selectRecords, [runId])).rows.map(toStored) };
    });
  }

  async runs(filter: RunFilter = {}): Promise<readonly RunRow[]> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    const add = (condition: string, value: unknown): void => {
      params.push(value);
      conditions.push(condition.replace('?', `$${params.length}`));
    };
    if (filter.unsealed === true) add('sealed = ?', false);
    if (filter.taskType !== undefined) add('task_type = ?', filter.taskType);
    if (filter.since !== undefined) add('started_at >= ?', filter.since);
    if (filter.runId !== undefined) add('run_id = ?', filter.runId);
    if (filter.missionId !== undefined) add('mission_id = ?', filter.missionId);
    if (filter.planHash !== undefined) add('plan_hash = ?', filter.planHash);
    if (filter.resolves !== undefined) add('resolves = ?', filter.resolves);
    const sql = `${this.#sql.runs}${conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`} ORDER BY started_at, run_id`;
    return (await this.#pool.query<RunDbRow>(sql, params)).rows.map(toRun);
  }

  async latestSealed({ missionId, planHash }: { missionId: string; planHash: string }): Promise<RunRow | undefined> {
    const row = (await this.#pool.query<RunDbRow>(this.#sql.latestSealed, [missionId, planHash])).rows[0];
    return row === undefined ? undefined : toRun(row);
  }

  streamHistory(options: StreamOptions = {}): AsyncGenerator<StoredRun> {
    return this.#stream(options, true);
  }

  async *streamRuns(options: StreamOptions = {}): AsyncGenerator<RunRow> {
    for await (const { run } of this.#stream(options, false)) yield run;
  }

  /**
   * Keyset pages, two queries each (the runs, then their records), all in one REPEATABLE READ READ ONLY
   * transaction on one connection: one snapshot for the whole stream, not a transaction per run.
   */
  async *#stream(options: StreamOptions, withRecords: boolean): AsyncGenerator<StoredRun> {
    const pageSize = pageSizeOf(options);
    const client = await this.#pool.connect();
    let failed = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      yield* keysetPages({
        pageSize,
        page: async (after, limit) => {
          const query = pageQuery({ filter: options.filter, after, limit, placeholder: (n) => `$${n}`, unsealed: false });
          const runs = (await client.query<RunDbRow>(`${this.#sql.runs}${query.sql}`, query.params)).rows.map(toRun);
          if (!withRecords || runs.length === 0) return { runs, records: [] };
          const ids = runs.map((run) => run.runId);
          return { runs, records: (await client.query<RecordDbRow>(this.#sql.pageRecords, [ids])).rows.map(toStored) };
        },
      });
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // Read only: ending it either way changes nothing; a connection whose query failed is not reused.
      await client.query(failed ? 'ROLLBACK' : 'COMMIT').catch(() => undefined);
      client.release(failed);
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
    if ((await this.#pool.query(this.#sql.selectRun, [run.runId])).rows.length > 0) {
      throw new LedgerError({ code: 'ledger.exists', runId: run.runId, message: `run ${run.runId} is already in this ledger` });
    }
    // The link columns come from the chained `run.started` record, not from the exported row.
    const link = records[0] === undefined ? {} : linkFields(parseRecord(records[0]));
    try {
      await inTransaction(this.#pool, async (client) => {
        await client.query(this.#sql.insertRun, [
          run.runId,
          run.missionId,
          run.taskType,
          run.startedAt,
          GENESIS,
          link.planHash ?? null,
          link.resolves ?? null,
        ]);
        for (const row of records) await insert(client, this.#sql.insertRecord, row);
      });
    } catch (error) {
      refusal(error, run.runId, (error as { code?: string }).code === '23505');
    }
  }

  async priors(taskType: string): Promise<TaskPriors | undefined> {
    let rows: { entry: string }[];
    try {
      ({ rows } = await this.#pool.query<{ entry: string }>(this.#sql.selectPriors, [taskType]));
    } catch (error) {
      throw priorsFailure(error, taskType);
    }
    return rows[0] === undefined ? undefined : parsePriors(taskType, rows[0].entry);
  }

  async learn(taskType: string, scores: readonly number[]): Promise<void> {
    expectLearnable(taskType, scores);
    try {
      await inTransaction(this.#pool, async (client) => {
        // The first learner of a task type creates its row (an empty entry, never committed as such); every
        // learner then locks the row before reading it, so concurrent learners queue instead of losing updates.
        await client.query(this.#sql.createPriors, [taskType, JSON.stringify(EMPTY_PRIORS), Date.now()]);
        const [row] = (await client.query<{ entry: string }>(this.#sql.lockPriors, [taskType])).rows;
        const entry = learnedPriors(taskType, row === undefined ? undefined : parsePriors(taskType, row.entry), scores);
        await client.query(this.#sql.updatePriors, [taskType, JSON.stringify(entry), Date.now()]);
      });
    } catch (error) {
      throw priorsFailure(error, taskType);
    }
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#pool.end();
  }
}

function insert(client: Pick<PgClient, 'query'>, sql: string, row: StoredRecord): Promise<unknown> {
  return client.query(sql, [row.runId, row.seq, row.type, row.body, row.prevHash, row.hash]);
}

async function migrate(pool: PgPool, schema: string): Promise<void> {
  const S = quote(schema);
  await inTransaction(pool, async (client) => {
    await applyMigrations(client, schema, S, {
      table: 'redline_migrations',
      migrations: MIGRATIONS,
      sql: (version, quoted) => POSTGRES_MIGRATIONS[version as MigrationVersion](quoted),
    });
  });
}
