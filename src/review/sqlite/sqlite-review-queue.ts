import { immediate, openSqlite, type SqliteDatabase, type SqliteSource, type SqliteStatement } from '../../db/sqlite/sqlite-database.js';
import type { Brief } from '../../core/brief.js';
import { alertStep, type Alert, type RunReport, type WebhookDelivery } from '../alerts.js';
import { admit, nextMode, release, type ModeChange, type QueueMode } from '../backpressure.js';
import { reloadRuntime, settleConfig, type ReviewConfig, type ReviewQueueOptions, type ReviewRuntime } from '../config.js';
import { chainJournal, type JournalHead, type JournalRow, type JournalType, type JournalVerification } from '../journal.js';
import { verifySync } from '../queue-tables.js';
import { boundLimit, limitChange, type LimitChange } from '../feedback-tuner.js';
import { countLabels } from '../labels.js';
import { REVIEW_MIGRATIONS } from '../migrations.js';
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
import { SQLITE_REVIEW_MIGRATIONS } from './migrations.js';
import { sqliteQueueStore } from './stored-queue.js';
import * as reviewers from './reviewers.js';
import { applyMigrations } from '../../db/sqlite/apply-migrations.js';

export interface SqliteReviewQueueOptions extends ReviewQueueOptions {
  /**
   * The ledger's database: a file (created with its folder when missing), an open database, or a
   * factory for one. The queue's tables sit next to the ledger's.
   */
  readonly database: SqliteSource;
  /**
   * `full` makes every change durable before it returns; `normal` survives a process crash but may lose
   * the last changes on power loss. Set on the connection, so a database shared with the ledger keeps
   * the ledger's setting unless this is given.
   * @default 'full' for a file opened here
   */
  readonly synchronous?: 'full' | 'normal' | 'off';
}

interface StateRow {
  mode: QueueMode;
  attempt_limit: number;
  alert_active: number;
  /** Running counters, moved by the change that moves them (schema version 4). */
  depth: number;
  verdicts: number;
  approved: number;
  dropped: number;
  alerts: number;
}

// `LIMIT -1` is SQLite's "no limit".
const limitParam = (page: Page = {}): number => limitOf(page.limit) ?? -1;

/**
 * The review queue in the ledger's SQLite file. Every change runs in one `BEGIN IMMEDIATE` transaction
 * that takes the write lock first, so concurrent processes claim, drop and switch modes one at a time;
 * the work inside is synchronous, so nothing else on a shared connection interleaves with it.
 */
export class SqliteReviewQueue implements ReviewQueue {
  #runtime: ReviewRuntime;
  /** The version of the stored settings `#runtime` holds; another process may have stored newer ones. */
  #settingsVersion: number;
  readonly #db: SqliteDatabase;
  readonly #owned: boolean;
  readonly #sql: Statements;

  private constructor(db: SqliteDatabase, owned: boolean, { runtime, settingsVersion }: Settled) {
    this.#db = db;
    this.#owned = owned;
    this.#runtime = runtime;
    this.#settingsVersion = settingsVersion;
    this.#sql = prepare(db);
  }

  /** Opens (and migrates) the review queue in a SQLite database, usually the ledger's. */
  static async open({ database, synchronous, ...options }: SqliteReviewQueueOptions): Promise<SqliteReviewQueue> {
    if (synchronous !== undefined && !['full', 'normal', 'off'].includes(synchronous))
      throw new TypeError(`Expected synchronous to be full, normal or off, got ${JSON.stringify(synchronous)}`);
    // A file opened here gets full durability; a database shared with the ledger keeps its setting.
    return openSqlite(
      database,
      synchronous ?? (typeof database === 'string' ? 'full' : undefined),
      (db, owned) => new SqliteReviewQueue(db, owned, migrate(db, options)),
    );
  }

  get config(): ReviewConfig {
    return this.#runtime.config;
  }

  async enqueue(brief: Brief, { tags }: EnqueueOptions = {}): Promise<EnqueueResult> {
    const { now, generateId } = this.#runtime;
    const at = now();
    const item = briefItem(brief, { id: generateId(), ...(tags === undefined ? {} : { tags }), enqueuedAt: at });
    return this.#immediate(() => {
      const config = this.config;
      const before = this.#sql.byRun.get(item.runId) as ItemRow | undefined;
      if (before !== undefined)
        return {
          ...(before.state === 'dropped' ? { dropped: toItem(before) } : { item: toItem(before) }),
          mode: this.#state().mode,
          repeated: true as const,
        };
      const { mode, depth } = this.#state();
      const lowest = depth >= config.backpressure.capacity ? (this.#sql.lowest.get(at) as ItemRow | undefined) : undefined;
      const droppable =
        lowest === undefined ? [] : [{ priority: lowest.priority, seq: Number(lowest.seq), id: lowest.id, json: lowest.item }];
      const json = JSON.stringify(item);
      const incoming = { priority: item.priority, seq: Number.POSITIVE_INFINITY, id: item.id, json };
      const step = admit({ policy: config.backpressure, mode, depth, droppable, incoming, at });
      this.#sql.insertItem.run(item.id, item.runId, item.priority, json, at, step.drop === incoming ? 'dropped' : 'open');
      if (step.drop !== undefined) {
        if (step.drop !== incoming) this.#sql.dropItem.run(step.drop.id);
        this.#sql.logDrop.run(step.drop.id, at, depth, item.id);
      }
      this.#sql.count.run({ depth: step.depth - depth, verdicts: 0, approved: 0, dropped: step.drop === undefined ? 0 : 1, alerts: 0 });
      const dropped = step.drop === undefined ? undefined : step.drop === incoming ? item : toItem({ item: step.drop.json });
      if (dropped !== undefined) this.#record([{ type: 'drop', at, data: { item: dropped, droppedAt: at, depth, displacedBy: item.id } }]);
      this.#setMode(step.modeChanged, item.id);
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
    const row = this.#immediate(() => this.#sql.claim.get(reviewer, at, at + lease, at) as ItemRow | undefined);
    return row === undefined ? undefined : toEntry(row, at);
  }

  async verdict(itemId: string, input: VerdictInput): Promise<VerdictResult> {
    const { now, generateId } = this.#runtime;
    // A label another process added: read the settings before refusing it.
    if (!this.config.labels.labels.includes(input?.label)) this.#refresh();
    assertVerdictInput(this.config.labels, itemId, input);
    const at = now();
    return this.#immediate(() => {
      const config = this.config;
      const row = this.#sql.get.get(itemId) as (ItemRow & ItemVerdictRow) | undefined;
      const action = verdictAction({ itemId, target: verdictTarget(row), input, now: at });
      if ('repeat' in action) return { verdict: action.repeat, repeated: true };
      const item = toItem(row as ItemRow);
      const verdict: Verdict = {
        id: generateId(),
        itemId,
        runId: item.runId,
        reviewer: input.reviewer,
        decision: input.decision,
        label: input.label,
        ...(input.comment === undefined ? {} : { comment: input.comment }),
        decidedAt: at,
      };
      const state = this.#state();
      const { depth } = state;
      this.#sql.insertVerdict.run(
        verdict.id,
        itemId,
        verdict.runId,
        verdict.reviewer,
        verdict.decision,
        verdict.label,
        verdict.comment ?? null,
        at,
      );
      this.#sql.decide.run(itemId);
      this.#sql.count.run({ depth: -1, verdicts: 1, approved: verdict.decision === 'approve' ? 1 : 0, dropped: 0, alerts: 0 });
      this.#record([{ type: 'verdict', at, data: verdict }]);
      const step = release({ policy: config.backpressure, mode: state.mode, depth, at });
      this.#setMode(step.modeChanged, itemId);
      const window = (this.#sql.recentVerdicts.all(config.tuner.window) as VerdictRow[]).reverse();
      const change = limitChange({ limit: state.attempt_limit, window, policy: config.tuner, at });
      if (change !== undefined) {
        this.#sql.setLimit.run(change.to);
        this.#sql.logLimit.run(change.from, change.to, change.approveRate, JSON.stringify(change.verdictIds), at, null);
        this.#record([{ type: 'limit_change', at, data: change }]);
      }
      return {
        verdict,
        repeated: false,
        ...(step.modeChanged === undefined ? {} : { modeChanged: step.modeChanged }),
        ...(change === undefined ? {} : { limitChanged: change }),
      };
    });
  }

  async get(itemId: string): Promise<ReviewEntry | undefined> {
    const row = this.#sql.get.get(itemId) as (ItemRow & ItemVerdictRow) | undefined;
    return row === undefined ? undefined : toEntry(row, this.#runtime.now());
  }

  async list(page: Page = {}): Promise<readonly ReviewEntry[]> {
    const at = this.#runtime.now();
    return (this.#sql.list.all(limitParam(page)) as ItemRow[]).map((row) => toEntry(row, at));
  }

  async depth(): Promise<number> {
    return this.#state().depth;
  }

  async mode(): Promise<QueueMode> {
    return this.#state().mode;
  }

  async currentLimit(): Promise<number> {
    return this.#state().attempt_limit;
  }

  async droppedItems(page: LogPage = {}): Promise<readonly DroppedItem[]> {
    const statement = page.newestFirst === true ? this.#sql.droppedNewest : this.#sql.dropped;
    return (statement.all(limitParam(page)) as BreakerRow[]).map(toDropped);
  }

  async modeChanges(page: Page = {}): Promise<readonly ModeChange[]> {
    return (this.#sql.modeChanges.all(limitParam(page)) as ModeChangeRow[]).map(toModeChange);
  }

  async limitChanges(page: Page = {}): Promise<readonly LimitChange[]> {
    return (this.#sql.limitChanges.all(limitParam(page)) as LimitChangeRow[]).map(toLimitChange);
  }

  async recentVerdicts(n = this.config.labels.window): Promise<readonly Verdict[]> {
    return (this.#sql.recentVerdicts.all(limitOf(n)) as VerdictRow[]).map(toVerdict);
  }

  async labelCounts(window = this.config.labels.window): Promise<Readonly<Record<string, number>>> {
    return countLabels(
      this.config.labels,
      (await this.recentVerdicts(window)).map((verdict) => verdict.label),
    );
  }

  async stats(): Promise<ReviewStats> {
    const at = this.#runtime.now();
    // One read transaction, so the figures agree with each other.
    return this.#db.transaction(() => {
      const state = this.#state();
      return reviewStats(this.config, {
        depth: state.depth,
        mode: state.mode,
        claimed: this.#count('claimed', at),
        attemptLimit: state.attempt_limit,
        approved: state.approved,
        rejected: state.verdicts - state.approved,
        dropped: state.dropped,
        alerts: state.alerts,
        recent: (this.#sql.recentVerdicts.all(this.config.labels.window) as VerdictRow[]).map(toVerdict),
      });
    })();
  }

  async recordRun(report: RunReport): Promise<{ alert?: Alert }> {
    assertReport(report);
    const { now, generateId } = this.#runtime;
    const at = now();
    return this.#immediate(() => {
      const config = this.config;
      if (this.#sql.insertReport.run(report.runId, report.budgetCapped ? 1 : 0, at).changes === 0) return {};
      const recent = (this.#sql.recentReports.all(config.alerts.window) as { run_id: string; budget_capped: number }[])
        .reverse()
        .map((row) => ({ runId: row.run_id, budgetCapped: row.budget_capped === 1 }));
      const step = alertStep({ policy: config.alerts, active: this.#state().alert_active === 1, recent });
      this.#sql.setAlerting.run(step.active ? 1 : 0);
      if (step.raise === undefined) return {};
      const alert: Alert = { id: generateId(), kind: 'budget_cap_share', ...step.raise, raisedAt: at };
      this.#sql.insertAlert.run(alert.id, alert.kind, alert.share, alert.threshold, alert.window, JSON.stringify(alert.cappedRunIds), at);
      this.#sql.count.run({ depth: 0, verdicts: 0, approved: 0, dropped: 0, alerts: 1 });
      this.#record([{ type: 'alert', at, data: alert }]);
      return { alert };
    });
  }

  async recordAlertDelivery(alertId: string, delivery: WebhookDelivery): Promise<void> {
    this.#sql.setDelivery.run(JSON.stringify(delivery), alertId);
  }

  async alerts(page: LogPage = {}): Promise<readonly Alert[]> {
    return ((page.newestFirst === true ? this.#sql.alertsNewest : this.#sql.alerts).all(limitParam(page)) as AlertRow[]).map(toAlert);
  }

  async journal(page: Page = {}): Promise<readonly JournalRow[]> {
    return (this.#sql.journal.all(limitParam(page)) as JournalSqlRow[]).map(toJournalRow);
  }

  async verifyJournal(): Promise<JournalVerification> {
    // One read transaction: the journal, its head and the tables from the same snapshot, read in pages.
    return this.#db.transaction(() => verifySync(sqliteQueueStore(this.#db)))();
  }

  async addReviewer(name: string, tokenHash: string): Promise<void> {
    reviewers.addReviewer(this.#db, name, tokenHash, this.#runtime.now());
  }

  async reviewerByToken(tokenHash: string): Promise<string | undefined> {
    return reviewers.reviewerByToken(this.#db, tokenHash);
  }

  async releaseClaims(reviewer: string): Promise<number> {
    return reviewers.releaseClaims(this.#db, reviewer, this.#runtime.now());
  }

  async close(): Promise<void> {
    if (this.#owned) this.#db.close();
  }

  #state(): StateRow {
    return this.#sql.state.get() as StateRow;
  }

  #count(statement: 'claimed', ...params: unknown[]): number {
    return (this.#sql[statement].get(...params) as { n: number }).n;
  }

  #setMode(change: ModeChange | undefined, itemId: string): void {
    if (change === undefined) return;
    this.#sql.setMode.run(change.to);
    this.#sql.logMode.run(change.from, change.to, change.depth, change.at);
    this.#record([{ type: 'mode_change', at: change.at, data: { ...change, itemId } }]);
  }

  /** Appends to the journal inside the caller's transaction; the triggers advance the head. */
  #record(entries: readonly { type: JournalType; at: number; data: object }[]): void {
    record(this.#sql, entries);
  }

  /** Runs `work` holding the write lock (`BEGIN IMMEDIATE`), with the settings as stored; rolls back on any error. */
  #immediate<T>(work: () => T): T {
    return immediate(this.#db, () => {
      this.#refresh();
      return work();
    });
  }

  /** Takes the stored settings when another process changed them. */
  #refresh(): void {
    const row = this.#sql.settingsVersion.get() as { settings: string | null; settings_version: number };
    if (row.settings_version === this.#settingsVersion || row.settings === null) return;
    this.#runtime = reloadRuntime(this.#runtime, row.settings);
    this.#settingsVersion = row.settings_version;
  }
}

/** Every statement the queue runs, prepared once. */
function prepare(db: SqliteDatabase) {
  const open = "state = 'open'";
  const claimable = `${open} AND (lease_until IS NULL OR lease_until <= ?)`;
  const sql = (text: string): SqliteStatement => db.prepare(text);
  return {
    state: sql('SELECT mode, attempt_limit, alert_active, depth, verdicts, approved, dropped, alerts FROM review_state WHERE id = 1'),
    count: sql(
      'UPDATE review_state SET depth = depth + :depth, verdicts = verdicts + :verdicts, approved = approved + :approved, dropped = dropped + :dropped, alerts = alerts + :alerts WHERE id = 1',
    ),
    setMode: sql('UPDATE review_state SET mode = ? WHERE id = 1'),
    setLimit: sql('UPDATE review_state SET attempt_limit = ? WHERE id = 1'),
    setAlerting: sql('UPDATE review_state SET alert_active = ? WHERE id = 1'),
    claimed: sql(`SELECT count(*) AS n FROM review_items WHERE ${open} AND lease_until > ?`),
    byRun: sql('SELECT * FROM review_items WHERE run_id = ?'),
    lowest: sql(`SELECT * FROM review_items WHERE ${claimable} ORDER BY priority, seq LIMIT 1`),
    insertItem: sql('INSERT INTO review_items (id, run_id, priority, item, enqueued_at, state) VALUES (?, ?, ?, ?, ?, ?)'),
    dropItem: sql("UPDATE review_items SET state = 'dropped', claimed_by = NULL, claimed_at = NULL, lease_until = NULL WHERE id = ?"),
    logDrop: sql('INSERT INTO review_breaker_log (item_id, dropped_at, depth, displaced_by) VALUES (?, ?, ?, ?)'),
    logMode: sql('INSERT INTO review_mode_changes (from_mode, to_mode, depth, changed_at) VALUES (?, ?, ?, ?)'),
    claim: sql(
      `UPDATE review_items SET claims = claims + 1, claimed_by = ?, claimed_at = ?, lease_until = ? WHERE seq = (SELECT seq FROM review_items WHERE ${claimable} ORDER BY priority DESC, seq LIMIT 1) RETURNING *`,
    ),
    get: sql(`SELECT i.*, ${VERDICT_JOIN_COLUMNS} FROM review_items i LEFT JOIN review_verdicts v ON v.item_id = i.id WHERE i.id = ?`),
    list: sql(`SELECT * FROM review_items WHERE ${open} ORDER BY priority DESC, seq LIMIT ?`),
    insertVerdict: sql(
      'INSERT INTO review_verdicts (id, item_id, run_id, reviewer, decision, label, comment, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    decide: sql("UPDATE review_items SET state = 'decided', claimed_by = NULL, claimed_at = NULL, lease_until = NULL WHERE id = ?"),
    recentVerdicts: sql('SELECT * FROM review_verdicts ORDER BY seq DESC LIMIT ?'),
    logLimit: sql(
      'INSERT INTO review_limit_changes (from_limit, to_limit, approve_rate, verdict_ids, changed_at, cause) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    dropped: sql(`SELECT ${DROPPED_COLUMNS} FROM review_breaker_log b JOIN review_items i ON i.id = b.item_id ORDER BY b.seq LIMIT ?`),
    droppedNewest: sql(
      `SELECT ${DROPPED_COLUMNS} FROM review_breaker_log b JOIN review_items i ON i.id = b.item_id ORDER BY b.seq DESC LIMIT ?`,
    ),
    modeChanges: sql('SELECT * FROM review_mode_changes ORDER BY seq LIMIT ?'),
    limitChanges: sql('SELECT * FROM review_limit_changes ORDER BY seq LIMIT ?'),
    insertReport: sql(
      'INSERT INTO review_run_reports (run_id, budget_capped, reported_at) VALUES (?, ?, ?) ON CONFLICT (run_id) DO NOTHING',
    ),
    recentReports: sql('SELECT run_id, budget_capped FROM review_run_reports ORDER BY seq DESC LIMIT ?'),
    insertAlert: sql(
      'INSERT INTO review_alerts (id, kind, share, threshold, window_size, capped_run_ids, raised_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    setDelivery: sql('UPDATE review_alerts SET webhook = ? WHERE id = ?'),
    alerts: sql('SELECT * FROM review_alerts ORDER BY seq LIMIT ?'),
    alertsNewest: sql('SELECT * FROM review_alerts ORDER BY seq DESC LIMIT ?'),
    journal: sql('SELECT * FROM review_journal ORDER BY seq LIMIT ?'),
    journalHead: sql('SELECT journal_count, journal_hash FROM review_state WHERE id = 1'),
    appendJournal: sql('INSERT INTO review_journal (seq, type, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?)'),
    settings: sql('SELECT settings FROM review_state WHERE id = 1'),
    settingsVersion: sql('SELECT settings, settings_version FROM review_state WHERE id = 1'),
    storeSettings: sql(
      'UPDATE review_state SET settings = ?, settings_version = settings_version + 1 WHERE id = 1 RETURNING settings_version',
    ),
  };
}

type Statements = ReturnType<typeof prepare>;

function assertReport(report: RunReport): void {
  if (typeof report?.runId !== 'string' || report.runId.length === 0 || typeof report.budgetCapped !== 'boolean') {
    throw new TypeError(`Expected a run report { runId, budgetCapped }, got ${JSON.stringify(report)}`);
  }
}

function journalHead(sql: Statements): JournalHead {
  const row = sql.journalHead.get() as { journal_count: number; journal_hash: string };
  return { count: Number(row.journal_count), lastHash: row.journal_hash };
}

function record(sql: Statements, entries: readonly { type: JournalType; at: number; data: object }[]): void {
  for (const row of chainJournal(journalHead(sql), entries).rows)
    sql.appendJournal.run(row.seq, row.type, row.body, row.prevHash, row.hash);
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
function migrate(db: SqliteDatabase, options: ReviewQueueOptions): Settled {
  return immediate(db, () => {
    applyMigrations(db, {
      table: 'review_migrations',
      migrations: REVIEW_MIGRATIONS,
      sql: (version) => SQLITE_REVIEW_MIGRATIONS[version as keyof typeof SQLITE_REVIEW_MIGRATIONS],
    });
    const sql = prepare(db);
    const stored = (sql.settings.get() as { settings: string | null } | undefined)?.settings;
    const { runtime, changed } = settleConfig(stored, options);
    db.prepare("INSERT INTO review_state (id, mode, attempt_limit) VALUES (1, 'normal', ?) ON CONFLICT (id) DO NOTHING").run(
      runtime.config.tuner.initial,
    );
    if (changed === undefined)
      return { runtime, settingsVersion: (sql.settingsVersion.get() as { settings_version: number }).settings_version };
    const { settings_version: settingsVersion } = sql.storeSettings.get(JSON.stringify(runtime.config)) as { settings_version: number };
    const at = runtime.now();
    record(sql, [{ type: 'settings', at, data: changed }]);
    const state = sql.state.get() as StateRow;
    const { depth } = state;
    const mode = nextMode({ mode: state.mode, depth, policy: runtime.config.backpressure });
    if (mode !== state.mode) {
      const change: ModeChange = { from: state.mode, to: mode, depth, at };
      sql.setMode.run(mode);
      sql.logMode.run(change.from, change.to, change.depth, change.at);
      record(sql, [{ type: 'mode_change', at, data: { ...change, cause: 'settings' } }]);
    }
    const window = (sql.recentVerdicts.all(runtime.config.tuner.window) as VerdictRow[]).reverse();
    const bound = boundLimit({ limit: state.attempt_limit, window, policy: runtime.config.tuner, at });
    if (bound !== undefined) {
      sql.setLimit.run(bound.to);
      sql.logLimit.run(bound.from, bound.to, bound.approveRate, JSON.stringify(bound.verdictIds), at, 'settings');
      record(sql, [{ type: 'limit_change', at, data: bound }]);
    }
    return { runtime, settingsVersion };
  });
}
