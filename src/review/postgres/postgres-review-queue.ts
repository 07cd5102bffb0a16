import { applyMigrations } from '../../db/postgres/apply-migrations.js';
import { inTransaction, openPgPool, type PgClient, type PgPool } from '../../db/postgres/pg-pool.js';
import type { Alert, RunReport, WebhookDelivery } from '../alerts.js';
import type { ModeChange, QueueMode } from '../backpressure.js';
import { settleConfig, type ReviewQueueOptions } from '../config.js';
import type { LimitChange } from '../feedback-tuner.js';
import type { JournalRow, JournalVerification } from '../journal.js';
import { REVIEW_MIGRATIONS } from '../migrations.js';
import { driveAsync } from '../drive.js';
import { verifyQueue } from '../queue-tables.js';
import type { DroppedItem, Verdict } from '../types.js';
import {
  type LockedState,
  type LogRange,
  type QueueState,
  type QueueWrite,
  type ReviewStore,
  type ReviewTx,
  type StoredItem,
  type StoredSettings,
  type TxStep,
} from '../review-store.js';
import {
  toAlert,
  toDropped,
  toJournalRow,
  toLimitChange,
  toModeChange,
  toStored,
  toVerdict,
  DROPPED_COLUMNS,
  VERDICT_JOIN_COLUMNS,
  type AlertRow,
  type BreakerRow,
  type ItemRow,
  type ItemVerdictRow,
  type JournalSqlRow,
  type LimitChangeRow,
  type ModeChangeRow,
  type VerdictRow,
} from '../sql-rows.js';
import { settle, StoredReviewQueue } from '../stored-review-queue.js';
import { postgresFastPaths } from './fast-paths.js';
import { POSTGRES_REVIEW_MIGRATIONS } from './migrations.js';
import * as reviewers from './reviewers.js';
import { postgresQueueStore } from './stored-queue.js';

export interface PostgresReviewQueueOptions extends ReviewQueueOptions {
  /** The ledger's connection: a URL (`postgres://…`), a `pg` Pool, or a factory for one. */
  readonly connection: string | PgPool | (() => PgPool | Promise<PgPool>);
  /** The ledger's schema; the queue's tables sit next to its own. @default 'redline' */
  readonly schema?: string;
}

interface StateRow {
  mode: QueueMode;
  attempt_limit: number;
  alert_active: boolean;
  depth: number;
  verdicts: number;
  approved: number;
  dropped: number;
  alerts: number;
  /** BIGINT: `pg` hands it over as a string. */
  journal_count: string;
  journal_hash: string;
  settings_version: number;
}

type Query = Pick<PgClient, 'query'>;

const quote = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;

const STATE_COLUMNS =
  'mode, attempt_limit, alert_active, depth, verdicts, approved, dropped, alerts, journal_count, journal_hash, settings_version';

/** Every statement the store runs, qualified with the schema so `search_path` does not matter. */
function statements(S: string) {
  const open = "state = 'open'";
  const claimable = `${open} AND (lease_until IS NULL OR lease_until <= $1)`;
  return {
    // Every change of depth, mode, limit or alert state starts here: one order for all of them.
    lockState: `SELECT ${STATE_COLUMNS} FROM ${S}.review_state WHERE id = 1 FOR UPDATE`,
    state: `SELECT ${STATE_COLUMNS} FROM ${S}.review_state WHERE id = 1`,
    // The state row and the journal entries chained in JavaScript after the head read under its lock.
    setState: `WITH head AS (
        UPDATE ${S}.review_state SET mode = $1, attempt_limit = $2, alert_active = $3, depth = $4, verdicts = $5, approved = $6, dropped = $7, alerts = $8,
          journal_count = $9, journal_hash = $10, tuner_ids = coalesce($16, tuner_ids), tuner_approvals = coalesce($17, tuner_approvals) WHERE id = 1)
      INSERT INTO ${S}.review_journal (seq, type, body, prev_hash, hash, signature)
        SELECT * FROM unnest($11::bigint[], $12::text[], $13::text[], $14::text[], $15::text[], $18::text[])`,
    journal: `SELECT * FROM ${S}.review_journal ORDER BY seq LIMIT $1`,
    settings: `SELECT settings, settings_version FROM ${S}.review_state WHERE id = 1`,
    storeSettings: `UPDATE ${S}.review_state SET settings = $1, settings_version = settings_version + 1 WHERE id = 1`,
    claimed: `SELECT count(*)::int AS n FROM ${S}.review_items WHERE ${open} AND lease_until > $1`,
    byRun: `SELECT * FROM ${S}.review_items WHERE run_id = $1`,
    // SKIP LOCKED: a row locked by a claim or a verdict in flight is about to be held or decided, so it
    // is not droppable; and an enqueue (holding the state row) never waits on an item lock, so the
    // verdict's order (item, then state) cannot deadlock with it.
    lowest: `SELECT * FROM ${S}.review_items WHERE ${claimable} ORDER BY priority, seq LIMIT 1 FOR UPDATE SKIP LOCKED`,
    insertItem: `INSERT INTO ${S}.review_items (id, run_id, priority, item, enqueued_at, state) VALUES ($1, $2, $3, $4, $5, $6)`,
    drop: `WITH dropped AS (UPDATE ${S}.review_items SET state = 'dropped', claimed_by = NULL, claimed_at = NULL, lease_until = NULL WHERE id = $1 AND $5::boolean)
      INSERT INTO ${S}.review_breaker_log (item_id, dropped_at, depth, displaced_by) VALUES ($1, $2, $3, $4)`,
    logMode: `INSERT INTO ${S}.review_mode_changes (from_mode, to_mode, depth, changed_at) VALUES ($1, $2, $3, $4)`,
    // SKIP LOCKED: a reviewer passes over rows another reviewer is claiming instead of waiting for them.
    claim: `UPDATE ${S}.review_items SET claims = claims + 1, claimed_by = $2, claimed_at = $1, lease_until = $3
      WHERE seq = (SELECT seq FROM ${S}.review_items WHERE ${claimable} ORDER BY priority DESC, seq LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    get: `SELECT i.*, ${VERDICT_JOIN_COLUMNS} FROM ${S}.review_items i LEFT JOIN ${S}.review_verdicts v ON v.item_id = i.id WHERE i.id = $1`,
    // The item alone: a row lock that waited re-reads only the locked row, so a verdict joined here could
    // predate the one the wait was for. `get` reads it afresh after the lock.
    lockItem: `SELECT id FROM ${S}.review_items WHERE id = $1 FOR UPDATE`,
    list: `SELECT * FROM ${S}.review_items WHERE ${open} ORDER BY priority DESC, seq LIMIT $1`,
    decide: `WITH decided AS (UPDATE ${S}.review_items SET state = 'decided', claimed_by = NULL, claimed_at = NULL, lease_until = NULL WHERE id = $2)
      INSERT INTO ${S}.review_verdicts (id, item_id, run_id, reviewer, decision, label, comment, decided_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    recentVerdicts: `SELECT * FROM ${S}.review_verdicts ORDER BY seq DESC LIMIT $1`,
    logLimit: `INSERT INTO ${S}.review_limit_changes (from_limit, to_limit, approve_rate, verdict_ids, changed_at, cause) VALUES ($1, $2, $3, $4, $5, $6)`,
    dropped: `SELECT ${DROPPED_COLUMNS} FROM ${S}.review_breaker_log b JOIN ${S}.review_items i ON i.id = b.item_id ORDER BY b.seq LIMIT $1`,
    droppedNewest: `SELECT ${DROPPED_COLUMNS} FROM ${S}.review_breaker_log b JOIN ${S}.review_items i ON i.id = b.item_id ORDER BY b.seq DESC LIMIT $1`,
    modeChanges: `SELECT * FROM ${S}.review_mode_changes ORDER BY seq LIMIT $1`,
    limitChanges: `SELECT * FROM ${S}.review_limit_changes ORDER BY seq LIMIT $1`,
    insertReport: `INSERT INTO ${S}.review_run_reports (run_id, budget_capped, reported_at) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO NOTHING RETURNING seq`,
    recentReports: `SELECT run_id, budget_capped FROM ${S}.review_run_reports ORDER BY seq DESC LIMIT $1`,
    insertAlert: `INSERT INTO ${S}.review_alerts (id, kind, share, threshold, window_size, capped_run_ids, raised_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    setDelivery: `UPDATE ${S}.review_alerts SET webhook = $1 WHERE id = $2`,
    alerts: `SELECT * FROM ${S}.review_alerts ORDER BY seq LIMIT $1`,
    alertsNewest: `SELECT * FROM ${S}.review_alerts ORDER BY seq DESC LIMIT $1`,
  };
}

type Statements = ReturnType<typeof statements>;

async function rows<R>(client: Query, sql: string, values: readonly unknown[] = []): Promise<R[]> {
  return (await client.query<R & Record<string, unknown>>(sql, values)).rows;
}

async function one<R>(client: Query, sql: string, values: readonly unknown[] = []): Promise<R | undefined> {
  return (await rows<R>(client, sql, values))[0];
}

// `LIMIT NULL` is PostgreSQL's "no limit".
const limitParam = (limit: number | undefined): number | null => limit ?? null;

const stateOf = (row: StateRow): LockedState => ({
  mode: row.mode,
  attemptLimit: row.attempt_limit,
  alertActive: row.alert_active,
  depth: row.depth,
  verdicts: row.verdicts,
  approved: row.approved,
  dropped: row.dropped,
  alerts: row.alerts,
  head: { count: Number(row.journal_count), lastHash: row.journal_hash },
  settingsVersion: row.settings_version,
});

const stored = (row: (ItemRow & Partial<ItemVerdictRow>) | undefined): StoredItem | undefined =>
  row === undefined ? undefined : toStored(row);

/** A write transaction on one client, holding the state row from `state()` on. */
class PostgresReviewTx implements ReviewTx {
  readonly #client: Query;
  readonly #sql: Statements;
  /** The state row as locked: what a write without a change of state writes back. */
  #locked: LockedState | undefined;

  constructor(client: Query, sql: Statements) {
    this.#client = client;
    this.#sql = sql;
  }

  async state(): Promise<LockedState> {
    this.#locked = stateOf((await one<StateRow>(this.#client, this.#sql.lockState)) as StateRow);
    return this.#locked;
  }

  async settings(): Promise<StoredSettings> {
    return settingsOf(this.#client, this.#sql);
  }

  async byRun(runId: string): Promise<StoredItem | undefined> {
    return stored(await one<ItemRow>(this.#client, this.#sql.byRun, [runId]));
  }

  async lowest(at: number): Promise<StoredItem | undefined> {
    return stored(await one<ItemRow>(this.#client, this.#sql.lowest, [at]));
  }

  async item(itemId: string): Promise<StoredItem | undefined> {
    await this.#client.query(this.#sql.lockItem, [itemId]);
    return stored(await one<ItemRow & ItemVerdictRow>(this.#client, this.#sql.get, [itemId]));
  }

  async recentVerdicts(n: number): Promise<Verdict[]> {
    return (await rows<VerdictRow>(this.#client, this.#sql.recentVerdicts, [n])).map(toVerdict);
  }

  async addReport(report: RunReport, at: number): Promise<boolean> {
    return (await rows(this.#client, this.#sql.insertReport, [report.runId, report.budgetCapped, at])).length > 0;
  }

  async recentReports(n: number): Promise<RunReport[]> {
    const found = await rows<{ run_id: string; budget_capped: boolean }>(this.#client, this.#sql.recentReports, [n]);
    return found.map((row) => ({ runId: row.run_id, budgetCapped: row.budget_capped }));
  }

  async write(change: QueueWrite): Promise<void> {
    const [client, sql] = [this.#client, this.#sql];
    if (change.settings !== undefined) await client.query(sql.storeSettings, [change.settings]);
    const { insert, drop, verdict } = change;
    if (insert !== undefined) {
      const { item } = insert;
      await client.query(sql.insertItem, [item.id, item.runId, item.priority, JSON.stringify(item), item.enqueuedAt, insert.state]);
    }
    if (drop !== undefined)
      await client.query(sql.drop, [drop.itemId, drop.droppedAt, drop.depth, drop.displacedBy, drop.itemId !== insert?.item.id]);
    if (verdict !== undefined) {
      const v = verdict.verdict;
      await client.query(sql.decide, [v.id, v.itemId, v.runId, v.reviewer, v.decision, v.label, v.comment ?? null, v.decidedAt]);
    }
    const { modeChange: mode, limitChange: limit, alert } = change;
    if (mode !== undefined) await client.query(sql.logMode, [mode.from, mode.to, mode.depth, mode.at]);
    if (limit !== undefined)
      await client.query(sql.logLimit, [
        limit.from,
        limit.to,
        limit.approveRate,
        JSON.stringify(limit.verdictIds),
        limit.at,
        limit.cause ?? null,
      ]);
    if (alert !== undefined)
      await client.query(sql.insertAlert, [
        alert.id,
        alert.kind,
        alert.share,
        alert.threshold,
        alert.window,
        JSON.stringify(alert.cappedRunIds),
        alert.raisedAt,
      ]);
    if (change.state === undefined && change.journal === undefined) return;
    const locked = this.#locked as LockedState;
    const state = change.state ?? locked;
    const head = change.journal?.head ?? locked.head;
    const journal = change.journal?.rows ?? [];
    const column = <K extends keyof JournalRow>(key: K): JournalRow[K][] => journal.map((row) => row[key]);
    await client.query(sql.setState, [
      state.mode,
      state.attemptLimit,
      state.alertActive,
      state.depth,
      state.verdicts,
      state.approved,
      state.dropped,
      state.alerts,
      head.count,
      head.lastHash,
      column('seq'),
      column('type'),
      column('body'),
      column('prevHash'),
      column('hash'),
      // The tuner's window, kept for the fast verdict.
      verdict?.window.map((v) => v.id) ?? null,
      verdict?.window.map((v) => v.decision === 'approve') ?? null,
      journal.map((row) => row.signature ?? null),
    ]);
  }
}

async function settingsOf(client: Query, sql: Statements): Promise<StoredSettings> {
  const row = (await one<{ settings: string | null; settings_version: number }>(client, sql.settings)) as {
    settings: string | null;
    settings_version: number;
  };
  return { settings: row.settings, version: row.settings_version };
}

/**
 * The queue's storage in the ledger's PostgreSQL schema. Every change of depth, mode, limit or alert
 * state happens in a transaction holding the single `review_state` row's lock, so enqueues, drops,
 * verdicts and the tuner see one order across all processes. Claims lock only the row they take
 * (`FOR UPDATE SKIP LOCKED`), so reviewers do not wait for each other. Locks are taken item first, state
 * second, and an enqueue holding the state row skips locked items rather than waiting. The common
 * enqueue and verdict are one statement each (`fast-paths.ts`).
 */
class PostgresReviewStore implements ReviewStore {
  readonly #pool: PgPool;
  readonly #owned: boolean;
  readonly #sql: Statements;
  /** The schema, quoted. */
  readonly #schema: string;
  readonly fast: ReturnType<typeof postgresFastPaths>;

  constructor(pool: PgPool, owned: boolean, schema: string) {
    this.#pool = pool;
    this.#owned = owned;
    this.#schema = schema;
    this.#sql = statements(schema);
    this.fast = postgresFastPaths(pool, schema);
  }

  transaction<T>(step: TxStep<T>): Promise<T> {
    return inTransaction(this.#pool, (client) => driveAsync(step, new PostgresReviewTx(client, this.#sql)));
  }

  async state(): Promise<QueueState> {
    return stateOf((await one<StateRow>(this.#pool, this.#sql.state)) as StateRow);
  }

  settings(): Promise<StoredSettings> {
    return settingsOf(this.#pool, this.#sql);
  }

  snapshot(at: number, window: number): Promise<{ state: QueueState; claimed: number; recent: Verdict[] }> {
    const sql = this.#sql;
    // One snapshot, so the figures agree with each other.
    return inTransaction(this.#pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const state = stateOf((await one<StateRow>(client, sql.state)) as StateRow);
      const claimed = (await one<{ n: number }>(client, sql.claimed, [at]))?.n ?? 0;
      return { state, claimed, recent: (await rows<VerdictRow>(client, sql.recentVerdicts, [window])).map(toVerdict) };
    });
  }

  async claim(reviewer: string, at: number, leaseUntil: number): Promise<StoredItem | undefined> {
    // One statement: it commits on its own, holding the row's lock only while it runs.
    const row = await one<ItemRow>(this.#pool, this.#sql.claim, [at, reviewer, leaseUntil]);
    if (row === undefined) return undefined;
    this.fast.claimed(row.id, row.run_id);
    return toStored(row);
  }

  async get(itemId: string): Promise<StoredItem | undefined> {
    return stored(await one<ItemRow & ItemVerdictRow>(this.#pool, this.#sql.get, [itemId]));
  }

  async list(limit: number | undefined): Promise<StoredItem[]> {
    return (await rows<ItemRow>(this.#pool, this.#sql.list, [limitParam(limit)])).map(toStored);
  }

  async recentVerdicts(n: number): Promise<Verdict[]> {
    return (await rows<VerdictRow>(this.#pool, this.#sql.recentVerdicts, [n])).map(toVerdict);
  }

  async droppedItems({ limit, newestFirst }: LogRange): Promise<DroppedItem[]> {
    return (await rows<BreakerRow>(this.#pool, newestFirst ? this.#sql.droppedNewest : this.#sql.dropped, [limitParam(limit)])).map(
      toDropped,
    );
  }

  async modeChanges(limit: number | undefined): Promise<ModeChange[]> {
    return (await rows<ModeChangeRow>(this.#pool, this.#sql.modeChanges, [limitParam(limit)])).map(toModeChange);
  }

  async limitChanges(limit: number | undefined): Promise<LimitChange[]> {
    return (await rows<LimitChangeRow>(this.#pool, this.#sql.limitChanges, [limitParam(limit)])).map(toLimitChange);
  }

  async alerts({ limit, newestFirst }: LogRange): Promise<Alert[]> {
    return (await rows<AlertRow>(this.#pool, newestFirst ? this.#sql.alertsNewest : this.#sql.alerts, [limitParam(limit)])).map(toAlert);
  }

  async setDelivery(alertId: string, delivery: WebhookDelivery): Promise<void> {
    await this.#pool.query(this.#sql.setDelivery, [JSON.stringify(delivery), alertId]);
  }

  async journal(limit: number | undefined): Promise<JournalRow[]> {
    return (await rows<JournalSqlRow>(this.#pool, this.#sql.journal, [limitParam(limit)])).map(toJournalRow);
  }

  verifyJournal(): Promise<JournalVerification> {
    // One snapshot: the journal, its head and the tables agree even while reviewers append.
    return inTransaction(this.#pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return driveAsync(verifyQueue(), postgresQueueStore(client, this.#schema));
    });
  }

  async addReviewer(name: string, tokenHash: string, at: number): Promise<void> {
    await reviewers.addReviewer(this.#pool, this.#schema, name, tokenHash, at);
  }

  async reviewerByToken(tokenHash: string): Promise<string | undefined> {
    return reviewers.reviewerByToken(this.#pool, this.#schema, tokenHash);
  }

  async releaseClaims(reviewer: string, at: number): Promise<number> {
    return reviewers.releaseClaims(this.#pool, this.#schema, reviewer, at);
  }

  async rulesVerdicts(): Promise<ReadonlyMap<string, number>> {
    return reviewers.rulesVerdicts(this.#pool, this.#schema);
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#pool.end();
  }
}

/** The review queue in the ledger's PostgreSQL schema: the one queue over {@link PostgresReviewStore}. */
export class PostgresReviewQueue extends StoredReviewQueue {
  /** Connects to (and migrates) the review queue in a PostgreSQL schema, usually the ledger's. */
  static async open({ connection, schema = 'redline', ...options }: PostgresReviewQueueOptions): Promise<PostgresReviewQueue> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new TypeError(`Expected a plain schema name (letters, digits, _), got "${schema}"`);
    const initial = settleConfig(undefined, options).runtime.config.tuner.initial; // refuses bad options before connecting
    const owned = typeof connection === 'string';
    const pool =
      typeof connection === 'string' ? await openPgPool(connection) : typeof connection === 'function' ? await connection() : connection;
    try {
      const S = quote(schema);
      const store = new PostgresReviewStore(pool, owned, S);
      // Migrations and the settings in one transaction: a process opening at the same time waits.
      const settled = await inTransaction(pool, async (client) => {
        await applyMigrations(client, schema, S, {
          table: 'review_migrations',
          migrations: REVIEW_MIGRATIONS,
          sql: (version, quoted) => POSTGRES_REVIEW_MIGRATIONS[version as keyof typeof POSTGRES_REVIEW_MIGRATIONS](quoted),
        });
        await client.query(`INSERT INTO ${S}.review_state (id, mode, attempt_limit) VALUES (1, 'normal', $1) ON CONFLICT (id) DO NOTHING`, [
          initial,
        ]);
        return driveAsync(settle(options), new PostgresReviewTx(client, statements(S)));
      });
      return new PostgresReviewQueue(store, settled);
    } catch (error) {
      if (owned) await pool.end();
      throw error;
    }
  }
}
