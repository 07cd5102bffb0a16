import { ruleIdOf } from '../filter-rules.js';
import type { Alert, RunReport, WebhookDelivery } from '../alerts.js';
import type { ModeChange } from '../backpressure.js';
import { settleConfig, type ReviewQueueOptions } from '../config.js';
import type { LimitChange } from '../feedback-tuner.js';
import { EMPTY_JOURNAL, verifyJournal, type JournalHead, type JournalRow, type JournalVerification } from '../journal.js';
import { driveSync } from '../drive.js';
import type { DroppedItem, ReviewClaim, ReviewItem, Verdict } from '../types.js';
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
import { settle, StoredReviewQueue } from '../stored-review-queue.js';

interface Stored {
  readonly item: ReviewItem;
  readonly seq: number;
  state: 'open' | 'decided' | 'dropped';
  claims: number;
  claim?: ReviewClaim;
  verdict?: Verdict;
}

/** A deep, frozen copy through JSON: what a SQL backend would hand back, and safe to share. */
function frozenCopy<T>(value: T): T {
  const freeze = (node: unknown): unknown => {
    if (typeof node === 'object' && node !== null) for (const child of Object.values(node)) freeze(child);
    return Object.freeze(node);
  };
  return freeze(JSON.parse(JSON.stringify(value))) as T;
}

const page = <T>(rows: readonly T[], { limit, newestFirst = false }: Partial<LogRange>): T[] =>
  (newestFirst ? rows.toReversed() : rows).slice(0, limit);

const held = (entry: Stored, at: number): boolean => entry.claim !== undefined && entry.claim.leaseUntil > at;

/**
 * The queue's storage in memory. Every transaction runs without yielding and writes only at its end, so
 * a refused call changes nothing.
 */
class MemoryReviewStore implements ReviewStore, ReviewTx {
  readonly #items = new Map<string, Stored>();
  readonly #byRun = new Map<string, Stored>();
  /** The items in the queue, queued or claimed. */
  readonly #inQueue = new Set<Stored>();
  readonly #verdicts: Verdict[] = [];
  readonly #dropped: DroppedItem[] = [];
  readonly #modeChanges: ModeChange[] = [];
  readonly #limitChanges: LimitChange[] = [];
  readonly #runs: RunReport[] = [];
  readonly #runIds = new Set<string>();
  readonly #alerts: Alert[] = [];
  readonly #journal: JournalRow[] = [];
  #head: JournalHead = EMPTY_JOURNAL;
  #seq = 0;
  #state: QueueState;
  #settings: StoredSettings = { settings: null, version: 0 };
  /** Reviewer name → the hash of their sign-in token. */
  readonly #reviewers = new Map<string, string>();

  constructor(attemptLimit: number) {
    this.#state = { mode: 'normal', attemptLimit, alertActive: false, depth: 0, verdicts: 0, approved: 0, dropped: 0, alerts: 0 };
  }

  async transaction<T>(step: TxStep<T>): Promise<T> {
    return driveSync(step, this);
  }

  state(): LockedState {
    return { ...this.#state, head: this.#head, settingsVersion: this.#settings.version };
  }

  settings(): StoredSettings {
    return this.#settings;
  }

  byRun(runId: string): StoredItem | undefined {
    const stored = this.#byRun.get(runId);
    return stored === undefined ? undefined : this.#copy(stored);
  }

  lowest(at: number): StoredItem | undefined {
    const droppable = [...this.#inQueue].filter((entry) => !held(entry, at));
    return droppable.sort((a, b) => a.item.priority - b.item.priority || a.seq - b.seq)[0];
  }

  item(itemId: string): StoredItem | undefined {
    return this.get(itemId);
  }

  recentVerdicts(n: number): Verdict[] {
    return this.#verdicts.slice(Math.max(0, this.#verdicts.length - n)).reverse();
  }

  addReport(report: RunReport): boolean {
    if (this.#runIds.has(report.runId)) return false;
    this.#runIds.add(report.runId);
    this.#runs.push(report);
    return true;
  }

  recentReports(n: number): RunReport[] {
    return this.#runs.slice(Math.max(0, this.#runs.length - n)).reverse();
  }

  write(change: QueueWrite): void {
    if (change.settings !== undefined) this.#settings = { settings: change.settings, version: this.#settings.version + 1 };
    if (change.insert !== undefined) {
      const stored: Stored = { item: frozenCopy(change.insert.item), seq: ++this.#seq, state: change.insert.state, claims: 0 };
      this.#items.set(stored.item.id, stored);
      this.#byRun.set(stored.item.runId, stored);
      if (stored.state === 'open') this.#inQueue.add(stored);
    }
    if (change.drop !== undefined) {
      const { itemId, ...drop } = change.drop;
      const victim = this.#items.get(itemId) as Stored;
      victim.state = 'dropped';
      delete victim.claim;
      this.#inQueue.delete(victim);
      this.#dropped.push(Object.freeze({ item: victim.item, ...drop }));
    }
    if (change.verdict !== undefined) {
      const verdict = frozenCopy(change.verdict.verdict);
      const target = this.#items.get(verdict.itemId) as Stored;
      target.state = 'decided';
      target.verdict = verdict;
      delete target.claim;
      this.#inQueue.delete(target);
      this.#verdicts.push(verdict);
    }
    if (change.state !== undefined) this.#state = { ...change.state };
    if (change.modeChange !== undefined) this.#modeChanges.push(frozenCopy(change.modeChange));
    if (change.limitChange !== undefined) this.#limitChanges.push(frozenCopy(change.limitChange));
    if (change.alert !== undefined) this.#alerts.push(frozenCopy(change.alert));
    if (change.journal !== undefined) {
      for (const row of change.journal.rows) this.#journal.push(Object.freeze({ ...row }));
      this.#head = change.journal.head;
    }
  }

  snapshot(at: number, window: number): { state: QueueState; claimed: number; recent: Verdict[] } {
    let claimed = 0;
    for (const entry of this.#inQueue) if (held(entry, at)) claimed += 1;
    return { state: this.#state, claimed, recent: this.recentVerdicts(window) };
  }

  claim(reviewer: string, at: number, leaseUntil: number): StoredItem | undefined {
    const next = this.#open().find((entry) => !held(entry, at));
    if (next === undefined) return undefined;
    next.claims += 1;
    next.claim = { reviewer, claimedAt: at, leaseUntil };
    return this.#copy(next);
  }

  get(itemId: string): StoredItem | undefined {
    const stored = this.#items.get(itemId);
    return stored === undefined ? undefined : this.#copy(stored);
  }

  list(limit: number | undefined): StoredItem[] {
    return this.#open()
      .slice(0, limit)
      .map((stored) => this.#copy(stored));
  }

  droppedItems(range: LogRange): DroppedItem[] {
    return page(this.#dropped, range);
  }

  modeChanges(limit: number | undefined): ModeChange[] {
    return page(this.#modeChanges, { limit });
  }

  limitChanges(limit: number | undefined): LimitChange[] {
    return page(this.#limitChanges, { limit });
  }

  alerts(range: LogRange): Alert[] {
    return page(this.#alerts, range);
  }

  setDelivery(alertId: string, delivery: WebhookDelivery): void {
    const index = this.#alerts.findIndex((alert) => alert.id === alertId);
    if (index >= 0) this.#alerts[index] = frozenCopy({ ...(this.#alerts[index] as Alert), webhook: delivery });
  }

  journal(limit: number | undefined): JournalRow[] {
    return page(this.#journal, { limit });
  }

  verifyJournal(): JournalVerification {
    return verifyJournal(this.#journal, this.#head);
  }

  addReviewer(name: string, tokenHash: string): void {
    this.#reviewers.set(name, tokenHash);
  }

  reviewerByToken(tokenHash: string): string | undefined {
    for (const [name, hash] of this.#reviewers) if (hash === tokenHash) return name;
    return undefined;
  }

  rulesVerdicts(): ReadonlyMap<string, number> {
    const counts = new Map<string, number>();
    for (const { reviewer } of this.#verdicts) if (ruleIdOf(reviewer) !== undefined) counts.set(reviewer, (counts.get(reviewer) ?? 0) + 1);
    return counts;
  }

  releaseClaims(reviewer: string, at: number): number {
    let released = 0;
    for (const entry of this.#inQueue)
      if (held(entry, at) && entry.claim?.reviewer === reviewer) {
        delete entry.claim;
        released += 1;
      }
    return released;
  }

  close(): void {}

  /** Items in the queue, in review order: highest priority, then oldest. */
  #open(): Stored[] {
    return [...this.#inQueue].sort((a, b) => b.item.priority - a.item.priority || a.seq - b.seq);
  }

  /** The item as it stands now: later changes to the stored one do not reach it. */
  #copy(stored: Stored): StoredItem {
    return { ...stored, ...(stored.claim === undefined ? {} : { claim: { ...stored.claim } }) };
  }
}

/**
 * A review queue held in memory: for tests, simulations and library use without persistence. It is the
 * one queue (`StoredReviewQueue`) over a store of maps and arrays.
 */
export class MemoryReviewQueue extends StoredReviewQueue {
  constructor(options: ReviewQueueOptions = {}) {
    const store = new MemoryReviewStore(settleConfig(undefined, options).runtime.config.tuner.initial);
    super(store, driveSync(settle(options), store));
  }
}
