import type { Alert, RunReport, WebhookDelivery } from './alerts.js';
import type { Backpressure, ModeChange, QueueMode } from './backpressure.js';
import type { ReviewConfig } from './config.js';
import type { LimitChange } from './feedback-tuner.js';
import type { JournalHead, JournalRow, JournalVerification } from './journal.js';
import { asker, type Awaitable, type Steps } from './drive.js';
import type { QueueCounters } from './queue-tables.js';
import type { DroppedItem, ReviewClaim, ReviewItem, Verdict, VerdictInput } from './types.js';

/**
 * The storage port under the one review queue (`StoredReviewQueue`), as a kysely dialect sits under its
 * query builder: the queue decides (backpressure, verdict rules, tuner, alerts, journal), a store only
 * reads and writes rows. A backend is a store, its migrations and its verification reads; PostgreSQL
 * adds its one-statement paths as the optional {@link FastPaths} capability.
 */

/** The queue's state row. */
export interface QueueState extends QueueCounters {
  readonly mode: QueueMode;
  readonly attemptLimit: number;
  readonly alertActive: boolean;
}

/** The state row as a write transaction reads it, holding it (PostgreSQL locks it `FOR UPDATE`). */
export interface LockedState extends QueueState {
  readonly head: JournalHead;
  readonly settingsVersion: number;
}

/** An item as stored, with its arrival order, claim (live or not) and verdict. */
export interface StoredItem {
  readonly item: ReviewItem;
  /** Arrival order: lower is older. */
  readonly seq: number;
  readonly state: 'open' | 'decided' | 'dropped';
  readonly claims: number;
  readonly claim?: ReviewClaim;
  readonly verdict?: Verdict;
}

/** The settings stored with the queue (JSON; null before the first open stored them) and their version. */
export interface StoredSettings {
  readonly settings: string | null;
  readonly version: number;
}

/** Everything one decision changes, written at once at the end of its transaction. */
export interface QueueWrite {
  /** The whole state row after the change (the journal head is `journal`'s). */
  readonly state?: QueueState;
  /** New settings (JSON): the version goes up by one. */
  readonly settings?: string;
  /** A new item, joining the queue (`open`) or dropped on arrival. */
  readonly insert?: { readonly item: ReviewItem; readonly state: 'open' | 'dropped' };
  /** A drop: the item leaves the queue (unless it is the one inserted dropped) and the breaker log gains a row. */
  readonly drop?: Omit<DroppedItem, 'item'> & { readonly itemId: string };
  /**
   * A verdict: stored, and its item decided. `window` is the tuner's window it completes (oldest first),
   * for a store that keeps it for its fast path.
   */
  readonly verdict?: { readonly verdict: Verdict; readonly window: readonly Pick<Verdict, 'id' | 'decision'>[] };
  readonly modeChange?: ModeChange;
  readonly limitChange?: LimitChange;
  readonly alert?: Alert;
  /** Journal rows chained after the head the transaction read, and the new head. */
  readonly journal?: { readonly rows: readonly JournalRow[]; readonly head: JournalHead };
}

/**
 * What the queue asks of its storage inside one write transaction. Answers come at once (memory, SQLite:
 * the whole transaction runs without yielding, so nothing interleaves on a shared connection) or later
 * (PostgreSQL).
 */
export interface ReviewTx {
  /** The state row, held until the transaction ends; every write transaction reads it first or after `item`. */
  state(): Awaitable<LockedState>;
  settings(): Awaitable<StoredSettings>;
  byRun(runId: string): Awaitable<StoredItem | undefined>;
  /** The lowest-priority, then oldest, open item no live claim holds at `at`: the one a drop may take. */
  lowest(at: number): Awaitable<StoredItem | undefined>;
  /** An item with its verdict, held (PostgreSQL locks it before the state row: the order of every verdict). */
  item(itemId: string): Awaitable<StoredItem | undefined>;
  /** The newest `n` verdicts, newest first. */
  recentVerdicts(n: number): Awaitable<readonly Verdict[]>;
  /** Stores a run report; false when the run reported before. */
  addReport(report: RunReport, at: number): Awaitable<boolean>;
  /** The newest `n` run reports, newest first. */
  recentReports(n: number): Awaitable<readonly RunReport[]>;
  write(change: QueueWrite): Awaitable<void>;
}

/** A queue operation in progress: yields questions, receives their answers, returns its result (see `drive.ts`). */
export type TxStep<T> = Steps<ReviewTx, T>;

/** Asks the transaction; `yield* ask(…)` hands back the answer typed. */
export const ask = asker<ReviewTx>();

/** A page of a log: `limit` undefined reads all. */
export interface LogRange {
  readonly limit: number | undefined;
  readonly newestFirst: boolean;
}

/** The queue's storage: one write transaction at a time per queue, reads outside them. */
export interface ReviewStore {
  /** Runs `step` in one write transaction; commits what it wrote, or nothing when it throws. */
  transaction<T>(step: TxStep<T>): Promise<T>;
  /** The state row, not held. */
  state(): Awaitable<QueueState>;
  settings(): Awaitable<StoredSettings>;
  /** The figures `stats` reports, from one snapshot. */
  snapshot(at: number, window: number): Awaitable<{ state: QueueState; claimed: number; recent: readonly Verdict[] }>;
  /** Claims the highest-priority, then oldest, open item no live claim holds at `at`, atomically. */
  claim(reviewer: string, at: number, leaseUntil: number): Awaitable<StoredItem | undefined>;
  get(itemId: string): Awaitable<StoredItem | undefined>;
  /** Open items in review order. */
  list(limit: number | undefined): Awaitable<readonly StoredItem[]>;
  recentVerdicts(n: number): Awaitable<readonly Verdict[]>;
  droppedItems(range: LogRange): Awaitable<readonly DroppedItem[]>;
  modeChanges(limit: number | undefined): Awaitable<readonly ModeChange[]>;
  limitChanges(limit: number | undefined): Awaitable<readonly LimitChange[]>;
  alerts(range: LogRange): Awaitable<readonly Alert[]>;
  setDelivery(alertId: string, delivery: WebhookDelivery): Awaitable<void>;
  journal(limit: number | undefined): Awaitable<readonly JournalRow[]>;
  /** The journal against its hashes and head, and (SQL) the tables against the journal, in one snapshot. */
  verifyJournal(): Awaitable<JournalVerification>;
  /** Stores (or replaces: the old token stops working) the hash of a named reviewer's sign-in token. */
  addReviewer(name: string, tokenHash: string, at: number): Awaitable<void>;
  reviewerByToken(tokenHash: string): Awaitable<string | undefined>;
  /** Frees the claims `reviewer` holds whose lease runs past `at`; how many. */
  releaseClaims(reviewer: string, at: number): Awaitable<number>;
  /** Verdicts per reviewer whose name starts with `filter:` (those filter rules gave). */
  rulesVerdicts(): Awaitable<ReadonlyMap<string, number>>;
  close(): Awaitable<void>;
  /** One-statement paths for the common enqueue and verdict, where the store has them. */
  readonly fast?: FastPaths;
}

/**
 * The common enqueue and verdict as one self-committing statement each (PostgreSQL): each applies the
 * backpressure and tuner policies in SQL and does nothing when they would do more than the common case
 * (a drop, a mode switch, a limit change), which the queue then runs as a full transaction. They must
 * agree with the pure policies (`test/review/fast-paths.test.ts`).
 */
export interface FastPaths {
  /** The item joined below capacity without a mode switch: the mode; undefined: nothing changed. */
  enqueue(input: { item: ReviewItem; policy: Backpressure; settingsVersion: number }): Promise<QueueMode | undefined>;
  /**
   * The verdict was stored with no mode switch and no limit change: the verdict (its id taken from
   * `verdictId`); undefined: nothing changed.
   */
  verdict(input: {
    itemId: string;
    input: VerdictInput;
    at: number;
    verdictId: () => string;
    config: ReviewConfig;
    settingsVersion: number;
  }): Promise<Verdict | undefined>;
}
