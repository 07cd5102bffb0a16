import { applyMigrations } from '../../db/postgres/apply-migrations.js';
import { inTransaction, openPgPool, type PgClient, type PgPool } from '../../db/postgres/pg-pool.js';
import type { Brief } from '../../core/brief.js';
import { alertStep, type Alert, type RunReport, type WebhookDelivery } from '../alerts.js';
import { admit, nextMode, release, watermark, type ModeChange, type QueueMode } from '../backpressure.js';
import { reloadRuntime, settleConfig, type ReviewConfig, type ReviewQueueOptions, type ReviewRuntime } from '../config.js';
import {
  chainJournal,
  journalBodyAround,
  type JournalHead,
  type JournalRow,
  type JournalType,
  type JournalVerification,
} from '../journal.js';
import { boundLimit, limitChange, type LimitChange } from '../feedback-tuner.js';
import { countLabels } from '../labels.js';
import { REVIEW_MIGRATIONS } from '../migrations.js';
import * as reviewers from './reviewers.js';
import { assertReviewer, briefItem, leaseOf, limitOf } from '../review-item.js';
import type {
  ClaimOptions,
  DroppedItem,
  EnqueueOptions,
  EnqueueResult,
  LogPage,
  Page,
  ReviewEntry,
  ReviewQueue,
  ReviewStats,
  Verdict,
  VerdictInput,
  VerdictResult,
} from '../review-queue.js';
import { reviewStats } from '../review-stats.js';
import {
  toAlert,
  toDropped,
  toEntry,
  toItem,
  toJournalRow,
  toLimitChange,
  toModeChange,
  toVerdict,
  DROPPED_COLUMNS,
  VERDICT_JOIN_COLUMNS,
  verdictTarget,
  type AlertRow,
  type BreakerRow,
  type ItemRow,
  type ItemVerdictRow,
  type JournalSqlRow,
  type LimitChangeRow,
  type ModeChangeRow,
  type VerdictRow,
} from '../sql-rows.js';
import { assertVerdictInput, verdictAction } from '../verdict-rules.js';
import { POSTGRES_REVIEW_MIGRATIONS } from './migrations.js';
import { postgresQueueStore } from './stored-queue.js';
import { verifyAsync } from '../queue-tables.js';

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

type JournalEntryInput = { type: JournalType; at: number; data: object };

const headOf = (state: StateRow): JournalHead => ({ count: Number(state.journal_count), lastHash: state.journal_hash });

type Query = Pick<PgClient, 'query'>;

/** Claims remembered for their verdict's one statement; older ones fall back to reading the item. */
const CLAIMED_RUNS = 1024;

const quote = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;

const STATE_COLUMNS =
  'mode, attempt_limit, alert_active, depth, verdicts, approved, dropped, alerts, journal_count, journal_hash, settings_version';

/** Every statement the queue runs, qualified with the schema so `search_path` does not matter. */
function statements(S: string) {
  const open = "state = 'open'";
  const claimable = `${open} AND (lease_until IS NULL OR lease_until <= $1)`;
  return {
    // Every change of depth, mode, limit or alert state starts here: one order for all of them.
    lockState: `SELECT ${STATE_COLUMNS} FROM ${S}.review_state WHERE id = 1 FOR UPDATE`,
    state: `SELECT ${STATE_COLUMNS} FROM ${S}.review_state WHERE id = 1`,
    // The common enqueue as one self-committing statement: with the settings this process holds, below
    // capacity and with no mode change to record, the depth counts up and the item goes in; otherwise
    // nothing happens and the full transaction runs. A run enqueued before fails the unique index, which
    // aborts it all the same.
    enqueueFast: `WITH counted AS (
        UPDATE ${S}.review_state SET depth = depth + 1
        WHERE id = 1 AND settings_version = $9::int AND depth < $6::int
          AND CASE WHEN mode = 'normal' THEN depth + 1 <= $7::float8 ELSE depth + 1 >= $8::float8 END RETURNING mode),
      inserted AS (
        INSERT INTO ${S}.review_items (id, run_id, priority, item, enqueued_at, state) SELECT $1, $2, $3, $4, $5, 'open' FROM counted RETURNING seq)
      SELECT counted.mode FROM counted, inserted`,
    // The common verdict as one self-committing statement, locking the item, then the state row (the
    // order of the full transaction), and holding the state row only until its commit: when the item
    // is open and not under another reviewer's live claim, the mode stays and the tuner holds (computed
    // here from the window kept in the state row), the verdict, the item leaving the queue, the depth,
    // the window and the journal entry (numbered and hashed here, after the head it locked) go in together.
    // Otherwise nothing changes and the full transaction runs.
    verdictFast: `WITH target AS (
        SELECT id FROM ${S}.review_items WHERE id = $2 AND run_id = $3 AND state = 'open' AND (claimed_by IS NULL OR claimed_by = $4 OR lease_until <= $8) FOR UPDATE),
      counted AS (
        UPDATE ${S}.review_state s SET
          depth = s.depth - 1,
          verdicts = s.verdicts + 1,
          approved = s.approved + ($5::text = 'approve')::int,
          tuner_ids = (s.tuner_ids || $1::text)[cardinality(s.tuner_ids) + 2 - $10::int:],
          tuner_approvals = (s.tuner_approvals || ($5::text = 'approve'))[cardinality(s.tuner_approvals) + 2 - $10::int:],
          journal_count = s.journal_count + 1,
          journal_prev = s.journal_hash,
          journal_hash = encode(sha256(convert_to(s.journal_hash || $9::text || s.journal_count::text || $18::text, 'UTF8')), 'hex')
        WHERE s.id = 1 AND EXISTS (SELECT 1 FROM target) AND s.settings_version = $17::int AND s.depth > 0 AND cardinality(s.tuner_ids) >= $10::int - 1
          AND CASE WHEN s.mode = 'degraded' THEN s.depth - 1 >= $11::float8 ELSE s.depth - 1 <= $16::float8 END
          AND LEAST($14::int, GREATEST($13::int, s.attempt_limit + (
            SELECT CASE WHEN rate > $12::float8 THEN 1 WHEN rate < $15::float8 THEN -1 ELSE 0 END
            FROM (SELECT count(*) FILTER (WHERE a)::float8 / $10::int AS rate FROM unnest((s.tuner_approvals || ($5::text = 'approve'))[cardinality(s.tuner_approvals) + 2 - $10::int:]) a) r
          ))) = s.attempt_limit
        RETURNING s.journal_count - 1 AS seq, s.journal_prev, s.journal_hash),
      decided AS (UPDATE ${S}.review_items SET state = 'decided', claimed_by = NULL, claimed_at = NULL, lease_until = NULL WHERE id = $2 AND EXISTS (SELECT 1 FROM counted)),
      verdict AS (INSERT INTO ${S}.review_verdicts (id, item_id, run_id, reviewer, decision, label, comment, decided_at) SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM counted),
      journaled AS (INSERT INTO ${S}.review_journal (seq, type, body, prev_hash, hash) SELECT seq, 'verdict', $9::text || seq::text || $18::text, journal_prev, journal_hash FROM counted)
      SELECT seq FROM counted`,
    // Appends journal entries chained in JavaScript after the head read under the state row's lock.
    appendJournal: `WITH head AS (UPDATE ${S}.review_state SET journal_count = $1, journal_hash = $2 WHERE id = 1)
      INSERT INTO ${S}.review_journal (seq, type, body, prev_hash, hash) SELECT * FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[])`,
    setWindow: `UPDATE ${S}.review_state SET tuner_ids = $1, tuner_approvals = $2 WHERE id = 1`,
    journal: `SELECT * FROM ${S}.review_journal ORDER BY seq LIMIT $1`,
    settings: `SELECT settings, settings_version FROM ${S}.review_state WHERE id = 1`,
    storeSettings: `UPDATE ${S}.review_state SET settings = $1, settings_version = settings_version + 1 WHERE id = 1 RETURNING settings_version`,
    setAlerting: `UPDATE ${S}.review_state SET alert_active = $1 WHERE id = 1`,
    claimed: `SELECT count(*)::int AS n FROM ${S}.review_items WHERE ${open} AND lease_until > $1`,
    byRun: `SELECT * FROM ${S}.review_items WHERE run_id = $1`,
    // SKIP LOCKED: a row locked by a claim or a verdict in flight is about to be held or decided, so it
    // is not droppable; and an enqueue (holding the state row) never waits on an item lock, so the
    // verdict's order (item, then state) cannot deadlock with it.
    lowest: `SELECT * FROM ${S}.review_items WHERE ${claimable} ORDER BY priority, seq LIMIT 1 FOR UPDATE SKIP LOCKED`,
    // The item and the new depth in one round trip; nothing changes when the run was enqueued before.
    insertItem: `WITH inserted AS (
        INSERT INTO ${S}.review_items (id, run_id, priority, item, enqueued_at, state) VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (run_id) DO NOTHING RETURNING seq),
      counted AS (UPDATE ${S}.review_state SET depth = $7, mode = $8, dropped = dropped + $9::int WHERE id = 1 AND EXISTS (SELECT 1 FROM inserted))
      SELECT seq FROM inserted`,
    drop: `WITH dropped AS (UPDATE ${S}.review_items SET state = 'dropped', claimed_by = NULL, claimed_at = NULL, lease_until = NULL WHERE id = $1)
      INSERT INTO ${S}.review_breaker_log (item_id, dropped_at, depth, displaced_by) VALUES ($1, $2, $3, $4)`,
    logDrop: `INSERT INTO ${S}.review_breaker_log (item_id, dropped_at, depth, displaced_by) VALUES ($1, $2, $3, $4)`,
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
    // The verdict, the item leaving the queue, the new depth, and the tuner's window (the newest verdicts
    // before this one, which the statement's snapshot cannot show, plus this one) in one round trip.
    decide: `WITH decided AS (UPDATE ${S}.review_items SET state = 'decided', claimed_by = NULL, claimed_at = NULL, lease_until = NULL WHERE id = $2),
      counted AS (UPDATE ${S}.review_state SET depth = $9, mode = $10, verdicts = verdicts + 1, approved = approved + ($5::text = 'approve')::int WHERE id = 1),
      inserted AS (INSERT INTO ${S}.review_verdicts (id, item_id, run_id, reviewer, decision, label, comment, decided_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING seq, id, decision)
      SELECT seq, id, decision FROM inserted
      UNION ALL (SELECT seq, id, decision FROM ${S}.review_verdicts ORDER BY seq DESC LIMIT $11)`,
    recentVerdicts: `SELECT * FROM ${S}.review_verdicts ORDER BY seq DESC LIMIT $1`,
    changeLimit: `WITH changed AS (UPDATE ${S}.review_state SET attempt_limit = $2 WHERE id = 1)
      INSERT INTO ${S}.review_limit_changes (from_limit, to_limit, approve_rate, verdict_ids, changed_at, cause) VALUES ($1, $2, $3, $4, $5, $6)`,
    setMode: `UPDATE ${S}.review_state SET mode = $1 WHERE id = 1`,
    dropped: `SELECT ${DROPPED_COLUMNS} FROM ${S}.review_breaker_log b JOIN ${S}.review_items i ON i.id = b.item_id ORDER BY b.seq LIMIT $1`,
    droppedNewest: `SELECT ${DROPPED_COLUMNS} FROM ${S}.review_breaker_log b JOIN ${S}.review_items i ON i.id = b.item_id ORDER BY b.seq DESC LIMIT $1`,
    modeChanges: `SELECT * FROM ${S}.review_mode_changes ORDER BY seq LIMIT $1`,
    limitChanges: `SELECT * FROM ${S}.review_limit_changes ORDER BY seq LIMIT $1`,
    insertReport: `INSERT INTO ${S}.review_run_reports (run_id, budget_capped, reported_at) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO NOTHING RETURNING seq`,
    recentReports: `SELECT run_id, budget_capped FROM ${S}.review_run_reports ORDER BY seq DESC LIMIT $1`,
    insertAlert: `WITH counted AS (UPDATE ${S}.review_state SET alerts = alerts + 1 WHERE id = 1)
      INSERT INTO ${S}.review_alerts (id, kind, share, threshold, window_size, capped_run_ids, raised_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
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

async function count(client: Query, sql: string, values: readonly unknown[] = []): Promise<number> {
  return (await one<{ n: number }>(client, sql, values))?.n ?? 0;
}

// `LIMIT NULL` is PostgreSQL's "no limit".
const limitParam = (page: Page = {}): number | null => limitOf(page.limit) ?? null;

/**
 * The review queue in the ledger's PostgreSQL schema. Every change of depth, mode, limit or alert state
 * happens in a transaction holding the single `review_state` row's lock, so enqueues, drops, verdicts
 * and the tuner see one order across all processes. Claims lock only the row they take
 * (`FOR UPDATE SKIP LOCKED`), so reviewers do not wait for each other. Locks are taken item first,
 * state second, and an enqueue holding the state row skips locked items rather than waiting.
 */
export class PostgresReviewQueue implements ReviewQueue {
  #runtime: ReviewRuntime;
  /** The version of the stored settings `#runtime` holds; another process may have stored newer ones. */
  #settingsVersion: number;
  readonly #pool: PgPool;
  readonly #owned: boolean;
  readonly #sql: Statements;
  /** The schema, quoted. */
  readonly #schema: string;
  /** Item → run of the items this queue claimed and has not decided yet (the newest {@link CLAIMED_RUNS}). */
  readonly #claimedRuns = new Map<string, string>();

  private constructor(pool: PgPool, owned: boolean, schema: string, { runtime, settingsVersion }: Settled) {
    this.#pool = pool;
    this.#owned = owned;
    this.#runtime = runtime;
    this.#settingsVersion = settingsVersion;
    this.#schema = quote(schema);
    this.#sql = statements(this.#schema);
  }

  /** Connects to (and migrates) the review queue in a PostgreSQL schema, usually the ledger's. */
  static async open({ connection, schema = 'redline', ...options }: PostgresReviewQueueOptions): Promise<PostgresReviewQueue> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new TypeError(`Expected a plain schema name (letters, digits, _), got "${schema}"`);
    settleConfig(undefined, options); // refuses bad options before connecting
    const owned = typeof connection === 'string';
    const pool =
      typeof connection === 'string' ? await openPgPool(connection) : typeof connection === 'function' ? await connection() : connection;
    try {
      return new PostgresReviewQueue(pool, owned, schema, await migrate(pool, schema, options));
    } catch (error) {
      if (owned) await pool.end();
      throw error;
    }
  }

  get config(): ReviewConfig {
    return this.#runtime.config;
  }

  async enqueue(brief: Brief, { tags }: EnqueueOptions = {}): Promise<EnqueueResult> {
    const { now, generateId } = this.#runtime;
    const at = now();
    const item = briefItem(brief, { id: generateId(), ...(tags === undefined ? {} : { tags }), enqueuedAt: at });
    const json = JSON.stringify(item);
    const sql = this.#sql;
    const { capacity, high, low } = this.config.backpressure;
    try {
      const fast = await one<{ mode: QueueMode }>(this.#pool, sql.enqueueFast, [
        item.id,
        item.runId,
        item.priority,
        json,
        at,
        capacity,
        watermark(high, capacity),
        watermark(low, capacity),
        this.#settingsVersion,
      ]);
      if (fast !== undefined) return { item, mode: fast.mode };
    } catch (error) {
      // The run was enqueued before: the full transaction says what became of it.
      if ((error as { code?: string }).code !== '23505') throw error;
    }
    return inTransaction(this.#pool, async (client) => {
      const state = (await one<StateRow>(client, sql.lockState)) as StateRow;
      await this.#refresh(client, state);
      const config = this.config;
      const { mode, depth } = state;
      const lowest = depth >= config.backpressure.capacity ? await one<ItemRow>(client, sql.lowest, [at]) : undefined;
      const droppable =
        lowest === undefined ? [] : [{ priority: lowest.priority, seq: Number(lowest.seq), id: lowest.id, json: lowest.item }];
      const incoming = { priority: item.priority, seq: Number.POSITIVE_INFINITY, id: item.id, json };
      const step = admit({ policy: config.backpressure, mode, depth, droppable, incoming, at });
      const inserted = await rows(client, sql.insertItem, [
        item.id,
        item.runId,
        item.priority,
        json,
        at,
        step.drop === incoming ? 'dropped' : 'open',
        step.depth,
        step.mode,
        step.drop === undefined ? 0 : 1,
      ]);
      if (inserted.length === 0) {
        const before = (await one<ItemRow>(client, sql.byRun, [item.runId])) as ItemRow;
        return { ...(before.state === 'dropped' ? { dropped: toItem(before) } : { item: toItem(before) }), mode, repeated: true as const };
      }
      if (step.drop !== undefined) await client.query(step.drop === incoming ? sql.logDrop : sql.drop, [step.drop.id, at, depth, item.id]);
      await this.#logMode(client, step.modeChanged);
      const dropped = step.drop === undefined ? undefined : step.drop === incoming ? item : toItem({ item: step.drop.json });
      await this.#record(client, state, [
        ...(dropped === undefined
          ? []
          : [{ type: 'drop' as const, at, data: { item: dropped, droppedAt: at, depth, displacedBy: item.id } }]),
        ...modeEntry(step.modeChanged, item.id),
      ]);
      return {
        ...(step.drop === incoming ? {} : { item }),
        ...(dropped === undefined ? {} : { dropped }),
        mode: step.mode,
        ...(step.modeChanged === undefined ? {} : { modeChanged: step.modeChanged }),
      };
    });
  }

  async claim(reviewer: string, options: ClaimOptions = {}): Promise<ReviewEntry | undefined> {
    assertReviewer(reviewer);
    const lease = leaseOf(options.leaseMs);
    const at = this.#runtime.now();
    // One statement: it commits on its own, holding the row's lock only while it runs.
    const row = await one<ItemRow>(this.#pool, this.#sql.claim, [at, reviewer, at + lease]);
    if (row === undefined) return undefined;
    this.#claimedRuns.set(row.id, row.run_id);
    if (this.#claimedRuns.size > CLAIMED_RUNS) this.#claimedRuns.delete(this.#claimedRuns.keys().next().value as string);
    return toEntry(row, at);
  }

  async verdict(itemId: string, input: VerdictInput): Promise<VerdictResult> {
    const { now, generateId } = this.#runtime;
    const sql = this.#sql;
    // A label another process added: read the settings before refusing it.
    if (!this.config.labels.labels.includes(input?.label)) await this.#refresh(this.#pool);
    assertVerdictInput(this.config.labels, itemId, input);
    const at = now();
    // One id whichever path decides, taken only when a verdict is stored.
    let id: string | undefined;
    const verdictId = (): string => (id ??= generateId());
    // The item's run names the verdict's journal entry: known from this queue's own claim, else read.
    // Either way the one statement re-checks the item under its lock.
    const claimedRun = this.#claimedRuns.get(itemId);
    this.#claimedRuns.delete(itemId);
    const seen = claimedRun === undefined ? await one<ItemRow & ItemVerdictRow>(this.#pool, sql.get, [itemId]) : undefined;
    const runId =
      claimedRun ??
      (seen !== undefined &&
      seen.state === 'open' &&
      (seen.claimed_by === null || seen.claimed_by === input.reviewer || Number(seen.lease_until) <= at)
        ? seen.run_id
        : undefined);
    if (runId !== undefined) {
      const verdict = verdictOf(verdictId(), itemId, runId, input, at);
      const { capacity, low, high } = this.config.backpressure;
      const { window, raiseAbove, lowerBelow, min, max } = this.config.tuner;
      // The journal entry's seq is the count the statement finds under its lock.
      const body = journalBodyAround('verdict', at, verdict);
      const fast = await rows(this.#pool, sql.verdictFast, [
        verdict.id,
        itemId,
        verdict.runId,
        verdict.reviewer,
        verdict.decision,
        verdict.label,
        verdict.comment ?? null,
        at,
        body.before,
        window,
        watermark(low, capacity),
        raiseAbove,
        min,
        max,
        lowerBelow,
        watermark(high, capacity),
        this.#settingsVersion,
        body.after,
      ]);
      if (fast.length > 0) return { verdict, repeated: false };
    }
    return inTransaction(this.#pool, async (client) => {
      // The item first, then the state row: verdicts on different items check and refuse in parallel,
      // and hold the state row only for the statements that decide. The item is read after its lock.
      await client.query(sql.lockItem, [itemId]);
      const row = await one<ItemRow & ItemVerdictRow>(client, sql.get, [itemId]);
      const action = verdictAction({ itemId, target: verdictTarget(row), input, now: at });
      if ('repeat' in action) return { verdict: action.repeat, repeated: true };
      const verdict = verdictOf(verdictId(), itemId, (row as ItemRow).run_id, input, at);
      const state = (await one<StateRow>(client, sql.lockState)) as StateRow;
      await this.#refresh(client, state);
      const config = this.config;
      const step = release({ policy: config.backpressure, mode: state.mode, depth: state.depth, at });
      const window = await rows<{ seq: string; id: string; decision: 'approve' | 'reject' }>(client, sql.decide, [
        verdict.id,
        itemId,
        verdict.runId,
        verdict.reviewer,
        verdict.decision,
        verdict.label,
        verdict.comment ?? null,
        at,
        step.depth,
        step.mode,
        config.tuner.window - 1,
      ]);
      await this.#logMode(client, step.modeChanged);
      window.sort((a, b) => Number(a.seq) - Number(b.seq));
      await client.query(sql.setWindow, [window.map((v) => v.id), window.map((v) => v.decision === 'approve')]);
      const change = limitChange({ limit: state.attempt_limit, window, policy: config.tuner, at });
      if (change !== undefined)
        await client.query(sql.changeLimit, [change.from, change.to, change.approveRate, JSON.stringify(change.verdictIds), at, null]);
      await this.#record(client, state, [
        { type: 'verdict', at, data: verdict },
        ...modeEntry(step.modeChanged, itemId),
        ...(change === undefined ? [] : [{ type: 'limit_change' as const, at, data: change }]),
      ]);
      return {
        verdict,
        repeated: false,
        ...(step.modeChanged === undefined ? {} : { modeChanged: step.modeChanged }),
        ...(change === undefined ? {} : { limitChanged: change }),
      };
    });
  }

  async get(itemId: string): Promise<ReviewEntry | undefined> {
    const row = await one<ItemRow & ItemVerdictRow>(this.#pool, this.#sql.get, [itemId]);
    return row === undefined ? undefined : toEntry(row, this.#runtime.now());
  }

  async list(page: Page = {}): Promise<readonly ReviewEntry[]> {
    const at = this.#runtime.now();
    return (await rows<ItemRow>(this.#pool, this.#sql.list, [limitParam(page)])).map((row) => toEntry(row, at));
  }

  async depth(): Promise<number> {
    return ((await one<StateRow>(this.#pool, this.#sql.state)) as StateRow).depth;
  }

  async mode(): Promise<QueueMode> {
    return ((await one<StateRow>(this.#pool, this.#sql.state)) as StateRow).mode;
  }

  async currentLimit(): Promise<number> {
    return ((await one<StateRow>(this.#pool, this.#sql.state)) as StateRow).attempt_limit;
  }

  async droppedItems(page: LogPage = {}): Promise<readonly DroppedItem[]> {
    const statement = page.newestFirst === true ? this.#sql.droppedNewest : this.#sql.dropped;
    return (await rows<BreakerRow>(this.#pool, statement, [limitParam(page)])).map(toDropped);
  }

  async modeChanges(page: Page = {}): Promise<readonly ModeChange[]> {
    return (await rows<ModeChangeRow>(this.#pool, this.#sql.modeChanges, [limitParam(page)])).map(toModeChange);
  }

  async limitChanges(page: Page = {}): Promise<readonly LimitChange[]> {
    return (await rows<LimitChangeRow>(this.#pool, this.#sql.limitChanges, [limitParam(page)])).map(toLimitChange);
  }

  async recentVerdicts(n = this.config.labels.window): Promise<readonly Verdict[]> {
    return (await rows<VerdictRow>(this.#pool, this.#sql.recentVerdicts, [limitOf(n)])).map(toVerdict);
  }

  async labelCounts(window = this.config.labels.window): Promise<Readonly<Record<string, number>>> {
    return countLabels(
      this.config.labels,
      (await this.recentVerdicts(window)).map((verdict) => verdict.label),
    );
  }

  async stats(): Promise<ReviewStats> {
    const at = this.#runtime.now();
    const sql = this.#sql;
    // One snapshot, so the figures agree with each other.
    return inTransaction(this.#pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const state = (await one<StateRow>(client, sql.state)) as StateRow;
      return reviewStats(this.config, {
        depth: state.depth,
        mode: state.mode,
        claimed: await count(client, sql.claimed, [at]),
        attemptLimit: state.attempt_limit,
        approved: state.approved,
        rejected: state.verdicts - state.approved,
        dropped: state.dropped,
        alerts: state.alerts,
        recent: (await rows<VerdictRow>(client, sql.recentVerdicts, [this.config.labels.window])).map(toVerdict),
      });
    });
  }

  async recordRun(report: RunReport): Promise<{ alert?: Alert }> {
    if (typeof report?.runId !== 'string' || report.runId.length === 0 || typeof report.budgetCapped !== 'boolean') {
      throw new TypeError(`Expected a run report { runId, budgetCapped }, got ${JSON.stringify(report)}`);
    }
    const { now, generateId } = this.#runtime;
    const at = now();
    const sql = this.#sql;
    return inTransaction(this.#pool, async (client) => {
      const state = (await one<StateRow>(client, sql.lockState)) as StateRow;
      await this.#refresh(client, state);
      const config = this.config;
      if ((await rows(client, sql.insertReport, [report.runId, report.budgetCapped, at])).length === 0) return {};
      const recent = (await rows<{ run_id: string; budget_capped: boolean }>(client, sql.recentReports, [config.alerts.window]))
        .reverse()
        .map((row) => ({ runId: row.run_id, budgetCapped: row.budget_capped }));
      const step = alertStep({ policy: config.alerts, active: state.alert_active, recent });
      if (step.active !== state.alert_active) await client.query(sql.setAlerting, [step.active]);
      if (step.raise === undefined) return {};
      const alert: Alert = { id: generateId(), kind: 'budget_cap_share', ...step.raise, raisedAt: at };
      await client.query(sql.insertAlert, [
        alert.id,
        alert.kind,
        alert.share,
        alert.threshold,
        alert.window,
        JSON.stringify(alert.cappedRunIds),
        at,
      ]);
      await this.#record(client, state, [{ type: 'alert', at, data: alert }]);
      return { alert };
    });
  }

  async recordAlertDelivery(alertId: string, delivery: WebhookDelivery): Promise<void> {
    await this.#pool.query(this.#sql.setDelivery, [JSON.stringify(delivery), alertId]);
  }

  async alerts(page: LogPage = {}): Promise<readonly Alert[]> {
    const statement = page.newestFirst === true ? this.#sql.alertsNewest : this.#sql.alerts;
    return (await rows<AlertRow>(this.#pool, statement, [limitParam(page)])).map(toAlert);
  }

  async journal(page: Page = {}): Promise<readonly JournalRow[]> {
    return (await rows<JournalSqlRow>(this.#pool, this.#sql.journal, [limitParam(page)])).map(toJournalRow);
  }

  async verifyJournal(): Promise<JournalVerification> {
    // One snapshot: the journal, its head and the tables agree even while reviewers append.
    return inTransaction(this.#pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return verifyAsync(postgresQueueStore(client, this.#schema));
    });
  }

  async addReviewer(name: string, tokenHash: string): Promise<void> {
    await reviewers.addReviewer(this.#pool, this.#schema, name, tokenHash, this.#runtime.now());
  }

  async reviewerByToken(tokenHash: string): Promise<string | undefined> {
    return reviewers.reviewerByToken(this.#pool, this.#schema, tokenHash);
  }

  async releaseClaims(reviewer: string): Promise<number> {
    // The claim's item may be in this queue's cache of claimed runs: a verdict reads it under its lock anyway.
    return reviewers.releaseClaims(this.#pool, this.#schema, reviewer, this.#runtime.now());
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#pool.end();
  }

  /** Takes the stored settings when another process changed them (`state`: the state row as just locked). */
  async #refresh(client: Query, state?: StateRow): Promise<void> {
    if (state !== undefined && state.settings_version === this.#settingsVersion) return;
    const stored = await one<{ settings: string | null; settings_version: number }>(client, this.#sql.settings);
    if (stored === undefined || stored.settings === null || stored.settings_version === this.#settingsVersion) return;
    this.#runtime = reloadRuntime(this.#runtime, stored.settings);
    this.#settingsVersion = stored.settings_version;
  }

  /** Appends to the journal after the head in `state`, which the caller's transaction holds locked. */
  async #record(client: Query, state: StateRow, entries: readonly JournalEntryInput[]): Promise<void> {
    await appendJournal(client, this.#sql, headOf(state), entries);
  }

  async #logMode(client: Query, change: ModeChange | undefined): Promise<void> {
    if (change !== undefined) await client.query(this.#sql.logMode, [change.from, change.to, change.depth, change.at]);
  }
}

function verdictOf(id: string, itemId: string, runId: string, input: VerdictInput, at: number): Verdict {
  return {
    id,
    itemId,
    runId,
    reviewer: input.reviewer,
    decision: input.decision,
    label: input.label,
    ...(input.comment === undefined ? {} : { comment: input.comment }),
    decidedAt: at,
  };
}

function modeEntry(change: ModeChange | undefined, itemId: string): JournalEntryInput[] {
  return change === undefined ? [] : [{ type: 'mode_change', at: change.at, data: { ...change, itemId } }];
}

async function appendJournal(client: Query, sql: Statements, head: JournalHead, entries: readonly JournalEntryInput[]): Promise<void> {
  if (entries.length === 0) return;
  const chained = chainJournal(head, entries);
  const column = <K extends keyof JournalRow>(key: K): JournalRow[K][] => chained.rows.map((row) => row[key]);
  await client.query(sql.appendJournal, [
    chained.head.count,
    chained.head.lastHash,
    column('seq'),
    column('type'),
    column('body'),
    column('prevHash'),
    column('hash'),
  ]);
}

interface Settled {
  readonly runtime: ReviewRuntime;
  readonly settingsVersion: number;
}

/**
 * Migrates, then settles the settings stored with the queue against `options`. A change is journaled,
 * and what the new settings make of the queue's state too: the mode the depth now calls for, an attempt
 * limit moved into new bounds.
 */
async function migrate(pool: PgPool, schema: string, options: ReviewQueueOptions): Promise<Settled> {
  const S = quote(schema);
  const sql = statements(S);
  return inTransaction(pool, async (client) => {
    await applyMigrations(client, schema, S, {
      table: 'review_migrations',
      migrations: REVIEW_MIGRATIONS,
      sql: (version, quoted) => POSTGRES_REVIEW_MIGRATIONS[version as keyof typeof POSTGRES_REVIEW_MIGRATIONS](quoted),
    });
    await client.query(`INSERT INTO ${S}.review_state (id, mode, attempt_limit) VALUES (1, 'normal', $1) ON CONFLICT (id) DO NOTHING`, [
      settleConfig(undefined, options).runtime.config.tuner.initial,
    ]);
    const state = (await one<StateRow>(client, sql.lockState)) as StateRow;
    const stored = (await one<{ settings: string | null }>(client, sql.settings))?.settings;
    const { runtime, changed } = settleConfig(stored, options);
    if (changed === undefined) return { runtime, settingsVersion: state.settings_version };
    const { settings_version: settingsVersion } = (await one<{ settings_version: number }>(client, sql.storeSettings, [
      JSON.stringify(runtime.config),
    ])) as { settings_version: number };
    const at = runtime.now();
    const entries: JournalEntryInput[] = [{ type: 'settings', at, data: changed }];
    const mode = nextMode({ mode: state.mode, depth: state.depth, policy: runtime.config.backpressure });
    if (mode !== state.mode) {
      const change: ModeChange = { from: state.mode, to: mode, depth: state.depth, at };
      await client.query(sql.setMode, [mode]);
      await client.query(sql.logMode, [change.from, change.to, change.depth, change.at]);
      entries.push({ type: 'mode_change', at, data: { ...change, cause: 'settings' } });
    }
    const window = (await rows<VerdictRow>(client, sql.recentVerdicts, [runtime.config.tuner.window])).reverse();
    const bound = boundLimit({ limit: state.attempt_limit, window, policy: runtime.config.tuner, at });
    if (bound !== undefined) {
      await client.query(sql.changeLimit, [bound.from, bound.to, bound.approveRate, JSON.stringify(bound.verdictIds), at, 'settings']);
      entries.push({ type: 'limit_change', at, data: bound });
    }
    await appendJournal(client, sql, headOf(state), entries);
    return { runtime, settingsVersion };
  });
}
