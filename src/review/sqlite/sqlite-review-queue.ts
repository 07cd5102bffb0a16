import {
  immediate,
  openSqlite,
  retryWhenBusy,
  SHORT_BUSY_TIMEOUT_MS,
  type SqliteDatabase,
  type SqliteSource,
  type SqliteStatement,
} from '../../db/sqlite/sqlite-database.js';
import { applyMigrations } from '../../db/sqlite/apply-migrations.js';
import type { Alert, RunReport, WebhookDelivery } from '../alerts.js';
import type { ModeChange, QueueMode } from '../backpressure.js';
import { settleConfig, type ReviewQueueOptions } from '../config.js';
import type { LimitChange } from '../feedback-tuner.js';
import type { JournalRow, JournalVerification } from '../journal.js';
import { REVIEW_MIGRATIONS } from '../migrations.js';
import { driveSync } from '../drive.js';
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
import { SQLITE_REVIEW_MIGRATIONS } from './migrations.js';
import * as reviewers from './reviewers.js';
import { sqliteQueueStore } from './stored-queue.js';

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
  depth: number;
  verdicts: number;
  approved: number;
  dropped: number;
  alerts: number;
  journal_count: number;
  journal_hash: string;
  settings_version: number;
}

// `LIMIT -1` is SQLite's "no limit".
const limitParam = (limit: number | undefined): number => limit ?? -1;

/** Every statement the queue runs, prepared once. */
function prepare(db: SqliteDatabase) {
  const open = "state = 'open'";
  const claimable = `${open} AND (lease_until IS NULL OR lease_until <= ?)`;
  const sql = (text: string): SqliteStatement => db.prepare(text);
  return {
    state: sql(
      'SELECT mode, attempt_limit, alert_active, depth, verdicts, approved, dropped, alerts, journal_count, journal_hash, settings_version FROM review_state WHERE id = 1',
    ),
    setState: sql(
      'UPDATE review_state SET mode = :mode, attempt_limit = :attemptLimit, alert_active = :alertActive, depth = :depth, verdicts = :verdicts, approved = :approved, dropped = :dropped, alerts = :alerts WHERE id = 1',
    ),
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
    // The triggers check each entry against the head and advance it.
    appendJournal: sql('INSERT INTO review_journal (seq, type, body, prev_hash, hash, signature) VALUES (?, ?, ?, ?, ?, ?)'),
    settings: sql('SELECT settings, settings_version FROM review_state WHERE id = 1'),
    storeSettings: sql('UPDATE review_state SET settings = ?, settings_version = settings_version + 1 WHERE id = 1'),
  };
}

type Statements = ReturnType<typeof prepare>;

const stateOf = (row: StateRow): LockedState => ({
  mode: row.mode,
  attemptLimit: row.attempt_limit,
  alertActive: row.alert_active === 1,
  depth: row.depth,
  verdicts: row.verdicts,
  approved: row.approved,
  dropped: row.dropped,
  alerts: row.alerts,
  head: { count: Number(row.journal_count), lastHash: row.journal_hash },
  settingsVersion: row.settings_version,
});

/**
 * The queue's storage in the ledger's SQLite file. Every write transaction is one `BEGIN IMMEDIATE` that
 * takes the write lock first, so concurrent processes claim, drop and switch modes one at a time; the
 * queue's work inside runs without yielding, so nothing else on a shared connection interleaves with it.
 */
class SqliteReviewStore implements ReviewStore, ReviewTx {
  readonly #db: SqliteDatabase;
  readonly #owned: boolean;
  readonly #sql: Statements;

  constructor(db: SqliteDatabase, owned: boolean) {
    this.#db = db;
    this.#owned = owned;
    this.#sql = prepare(db);
  }

  async transaction<T>(step: TxStep<T>): Promise<T> {
    return retryWhenBusy(() => immediate(this.#db, () => driveSync(step, this)));
  }

  state(): LockedState {
    return stateOf(this.#sql.state.get() as StateRow);
  }

  settings(): StoredSettings {
    const row = this.#sql.settings.get() as { settings: string | null; settings_version: number };
    return { settings: row.settings, version: row.settings_version };
  }

  byRun(runId: string): StoredItem | undefined {
    return this.#stored(this.#sql.byRun.get(runId));
  }

  lowest(at: number): StoredItem | undefined {
    return this.#stored(this.#sql.lowest.get(at));
  }

  item(itemId: string): StoredItem | undefined {
    return this.get(itemId);
  }

  recentVerdicts(n: number): Verdict[] {
    return (this.#sql.recentVerdicts.all(n) as VerdictRow[]).map(toVerdict);
  }

  addReport(report: RunReport, at: number): boolean {
    return this.#sql.insertReport.run(report.runId, report.budgetCapped ? 1 : 0, at).changes > 0;
  }

  recentReports(n: number): RunReport[] {
    return (this.#sql.recentReports.all(n) as { run_id: string; budget_capped: number }[]).map((row) => ({
      runId: row.run_id,
      budgetCapped: row.budget_capped === 1,
    }));
  }

  write(change: QueueWrite): void {
    const sql = this.#sql;
    if (change.settings !== undefined) sql.storeSettings.run(change.settings);
    const { insert, drop, verdict, state } = change;
    if (insert !== undefined) {
      const { item } = insert;
      sql.insertItem.run(item.id, item.runId, item.priority, JSON.stringify(item), item.enqueuedAt, insert.state);
    }
    if (drop !== undefined) {
      if (drop.itemId !== insert?.item.id || insert.state === 'open') sql.dropItem.run(drop.itemId);
      sql.logDrop.run(drop.itemId, drop.droppedAt, drop.depth, drop.displacedBy);
    }
    if (verdict !== undefined) {
      const v = verdict.verdict;
      sql.insertVerdict.run(v.id, v.itemId, v.runId, v.reviewer, v.decision, v.label, v.comment ?? null, v.decidedAt);
      sql.decide.run(v.itemId);
    }
    if (state !== undefined) sql.setState.run({ ...state, alertActive: state.alertActive ? 1 : 0 });
    const { modeChange: mode, limitChange: limit, alert } = change;
    if (mode !== undefined) sql.logMode.run(mode.from, mode.to, mode.depth, mode.at);
    if (limit !== undefined)
      sql.logLimit.run(limit.from, limit.to, limit.approveRate, JSON.stringify(limit.verdictIds), limit.at, limit.cause ?? null);
    if (alert !== undefined)
      sql.insertAlert.run(
        alert.id,
        alert.kind,
        alert.share,
        alert.threshold,
        alert.window,
        JSON.stringify(alert.cappedRunIds),
        alert.raisedAt,
      );
    for (const row of change.journal?.rows ?? [])
      sql.appendJournal.run(row.seq, row.type, row.body, row.prevHash, row.hash, row.signature ?? null);
  }

  snapshot(at: number, window: number): { state: QueueState; claimed: number; recent: Verdict[] } {
    // One read transaction, so the figures agree with each other.
    return this.#db.transaction(() => ({
      state: this.state(),
      claimed: (this.#sql.claimed.get(at) as { n: number }).n,
      recent: this.recentVerdicts(window),
    }))();
  }

  claim(reviewer: string, at: number, leaseUntil: number): Promise<StoredItem | undefined> {
    return retryWhenBusy(() => immediate(this.#db, () => this.#stored(this.#sql.claim.get(reviewer, at, leaseUntil, at))));
  }

  get(itemId: string): StoredItem | undefined {
    return this.#stored(this.#sql.get.get(itemId));
  }

  list(limit: number | undefined): StoredItem[] {
    return (this.#sql.list.all(limitParam(limit)) as ItemRow[]).map(toStored);
  }

  droppedItems({ limit, newestFirst }: LogRange): DroppedItem[] {
    return ((newestFirst ? this.#sql.droppedNewest : this.#sql.dropped).all(limitParam(limit)) as BreakerRow[]).map(toDropped);
  }

  modeChanges(limit: number | undefined): ModeChange[] {
    return (this.#sql.modeChanges.all(limitParam(limit)) as ModeChangeRow[]).map(toModeChange);
  }

  limitChanges(limit: number | undefined): LimitChange[] {
    return (this.#sql.limitChanges.all(limitParam(limit)) as LimitChangeRow[]).map(toLimitChange);
  }

  alerts({ limit, newestFirst }: LogRange): Alert[] {
    return ((newestFirst ? this.#sql.alertsNewest : this.#sql.alerts).all(limitParam(limit)) as AlertRow[]).map(toAlert);
  }

  setDelivery(alertId: string, delivery: WebhookDelivery): void {
    this.#sql.setDelivery.run(JSON.stringify(delivery), alertId);
  }

  journal(limit: number | undefined): JournalRow[] {
    return (this.#sql.journal.all(limitParam(limit)) as JournalSqlRow[]).map(toJournalRow);
  }

  verifyJournal(): JournalVerification {
    // One read transaction: the journal, its head and the tables from the same snapshot, read in pages.
    return this.#db.transaction(() => driveSync(verifyQueue(), sqliteQueueStore(this.#db)))();
  }

  addReviewer(name: string, tokenHash: string, at: number): Promise<void> {
    return retryWhenBusy(() => reviewers.addReviewer(this.#db, name, tokenHash, at));
  }

  reviewerByToken(tokenHash: string): string | undefined {
    return reviewers.reviewerByToken(this.#db, tokenHash);
  }

  releaseClaims(reviewer: string, at: number): Promise<number> {
    return retryWhenBusy(() => reviewers.releaseClaims(this.#db, reviewer, at));
  }

  rulesVerdicts(): ReadonlyMap<string, number> {
    return reviewers.rulesVerdicts(this.#db);
  }

  close(): void {
    if (this.#owned) this.#db.close();
  }

  #stored(row: unknown): StoredItem | undefined {
    return row === undefined ? undefined : toStored(row as ItemRow & Partial<ItemVerdictRow>);
  }
}

/** The review queue in the ledger's SQLite file: the one queue over {@link SqliteReviewStore}. */
export class SqliteReviewQueue extends StoredReviewQueue {
  /** Opens (and migrates) the review queue in a SQLite database, usually the ledger's. */
  static async open({ database, synchronous, ...options }: SqliteReviewQueueOptions): Promise<SqliteReviewQueue> {
    if (synchronous !== undefined && !['full', 'normal', 'off'].includes(synchronous))
      throw new TypeError(`Expected synchronous to be full, normal or off, got ${JSON.stringify(synchronous)}`);
    // A file opened here gets full durability; a database shared with the ledger keeps its setting.
    return openSqlite(database, synchronous ?? (typeof database === 'string' ? 'full' : undefined), (db, owned) => {
      // Migrations and the settings in one transaction: a process opening at the same time waits.
      const settled = immediate(db, () => {
        applyMigrations(db, {
          table: 'review_migrations',
          migrations: REVIEW_MIGRATIONS,
          sql: (version) => SQLITE_REVIEW_MIGRATIONS[version as keyof typeof SQLITE_REVIEW_MIGRATIONS],
        });
        db.prepare("INSERT INTO review_state (id, mode, attempt_limit) VALUES (1, 'normal', ?) ON CONFLICT (id) DO NOTHING").run(
          settleConfig(undefined, options).runtime.config.tuner.initial,
        );
        const store = new SqliteReviewStore(db, owned);
        return { store, settled: driveSync(settle(options), store) };
      });
      // A file the queue owns waits for another process's lock in short turns, off the event loop
      // (retryWhenBusy): a server on it keeps answering meanwhile.
      if (owned) db.pragma(`busy_timeout = ${SHORT_BUSY_TIMEOUT_MS}`);
      return new SqliteReviewQueue(settled.store, settled.settled);
    });
  }
}
