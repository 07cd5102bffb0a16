import type { Brief } from '../../core/brief.js';
import { alertStep, type Alert, type RunReport, type WebhookDelivery } from '../alerts.js';
import { admit, release, type ModeChange, type QueueMode } from '../backpressure.js';
import {
  chainJournal,
  EMPTY_JOURNAL,
  verifyJournal,
  type JournalHead,
  type JournalRow,
  type JournalType,
  type JournalVerification,
} from '../journal.js';
import { settleConfig, type ReviewConfig, type ReviewQueueOptions, type ReviewRuntime } from '../config.js';
import { limitChange, type LimitChange } from '../feedback-tuner.js';
import { countLabels } from '../labels.js';
import { assertReviewer, briefItem, entryOf, leaseOf, limitOf } from '../review-item.js';
import type {
  ClaimOptions,
  DroppedItem,
  EnqueueOptions,
  EnqueueResult,
  LogPage,
  Page,
  ReviewClaim,
  ReviewEntry,
  ReviewItem,
  ReviewQueue,
  ReviewStats,
  Verdict,
  VerdictInput,
  VerdictResult,
} from '../review-queue.js';
import { reviewStats } from '../review-stats.js';
import { assertReviewerEntry, assertTokenHash } from '../reviewers.js';
import { assertVerdictInput, verdictAction } from '../verdict-rules.js';

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

const page = <T>(rows: readonly T[], options: Page = {}): T[] => rows.slice(0, limitOf(options.limit));

/**
 * A review queue held in memory: for tests, simulations and library use without persistence. Every
 * method validates before it changes anything, and changes happen without an `await` in between.
 */
export class MemoryReviewQueue implements ReviewQueue {
  readonly config: ReviewConfig;
  readonly #runtime: ReviewRuntime;
  readonly #items = new Map<string, Stored>();
  readonly #byRun = new Map<string, Stored>();
  /** The items in the queue, queued or claimed: the depth is its size. */
  readonly #inQueue = new Set<Stored>();
  #approved = 0;
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
  #mode: QueueMode = 'normal';
  #limit: number;
  #alerting = false;
  /** Reviewer name → the hash of their sign-in token. */
  readonly #reviewers = new Map<string, string>();

  constructor(options: ReviewQueueOptions = {}) {
    const settled = settleConfig(undefined, options);
    this.#runtime = settled.runtime;
    this.config = this.#runtime.config;
    this.#limit = this.config.tuner.initial;
    this.#record([{ type: 'settings', at: this.#runtime.now(), data: settled.changed ?? {} }]);
  }

  async enqueue(brief: Brief, { tags }: EnqueueOptions = {}): Promise<EnqueueResult> {
    const { now, generateId, config } = this.#runtime;
    const at = now();
    const item = frozenCopy(briefItem(brief, { id: generateId(), ...(tags === undefined ? {} : { tags }), enqueuedAt: at }));
    const before = this.#byRun.get(item.runId);
    if (before !== undefined)
      return { ...(before.state === 'dropped' ? { dropped: before.item } : { item: before.item }), mode: this.#mode, repeated: true };
    const depth = this.#inQueue.size;
    const incoming: Stored = { item, seq: ++this.#seq, state: 'open', claims: 0 };
    // Only an enqueue at capacity drops, so only it looks at the items.
    const droppable =
      depth < config.backpressure.capacity
        ? []
        : [...this.#inQueue]
            .filter((entry) => !this.#held(entry, at))
            .map((entry) => ({ priority: entry.item.priority, seq: entry.seq, entry }));
    const step = admit({
      policy: config.backpressure,
      mode: this.#mode,
      depth,
      droppable,
      incoming: { priority: item.priority, seq: incoming.seq, entry: incoming },
      at,
    });
    this.#items.set(item.id, incoming);
    this.#byRun.set(item.runId, incoming);
    this.#inQueue.add(incoming);
    const victim = step.drop?.entry;
    if (victim !== undefined) {
      victim.state = 'dropped';
      delete victim.claim;
      this.#inQueue.delete(victim);
      const dropped: DroppedItem = Object.freeze({ item: victim.item, droppedAt: at, depth, displacedBy: item.id });
      this.#dropped.push(dropped);
      this.#record([{ type: 'drop', at, data: dropped }]);
    }
    this.#setMode(step.modeChanged, item.id);
    return {
      ...(victim === incoming ? {} : { item }),
      ...(victim === undefined ? {} : { dropped: victim.item }),
      mode: step.mode,
      ...(step.modeChanged === undefined ? {} : { modeChanged: step.modeChanged }),
    };
  }

  async claim(reviewer: string, options: ClaimOptions = {}): Promise<ReviewEntry | undefined> {
    assertReviewer(reviewer);
    const lease = leaseOf(options.leaseMs);
    const at = this.#runtime.now();
    const next = this.#open().find((entry) => !this.#held(entry, at));
    if (next === undefined) return undefined;
    next.claims += 1;
    next.claim = { reviewer, claimedAt: at, leaseUntil: at + lease };
    return this.#entry(next, at);
  }

  async verdict(itemId: string, input: VerdictInput): Promise<VerdictResult> {
    const { now, generateId, config } = this.#runtime;
    assertVerdictInput(config.labels, itemId, input);
    const at = now();
    const stored = this.#items.get(itemId);
    const action = verdictAction({ itemId, target: stored, input, now: at });
    if ('repeat' in action) return { verdict: action.repeat, repeated: true };
    const target = stored as Stored;
    const verdict: Verdict = frozenCopy({
      id: generateId(),
      itemId,
      runId: target.item.runId,
      reviewer: input.reviewer,
      decision: input.decision,
      label: input.label,
      ...(input.comment === undefined ? {} : { comment: input.comment }),
      decidedAt: at,
    });
    const depth = this.#inQueue.size;
    this.#inQueue.delete(target);
    if (verdict.decision === 'approve') this.#approved += 1;
    target.state = 'decided';
    target.verdict = verdict;
    delete target.claim;
    this.#verdicts.push(verdict);
    this.#record([{ type: 'verdict', at, data: verdict }]);
    const step = release({ policy: config.backpressure, mode: this.#mode, depth, at });
    this.#setMode(step.modeChanged, itemId);
    const change = limitChange({ limit: this.#limit, window: this.#verdicts.slice(-config.tuner.window), policy: config.tuner, at });
    if (change !== undefined) {
      this.#limit = change.to;
      this.#limitChanges.push(frozenCopy(change));
      this.#record([{ type: 'limit_change', at, data: change }]);
    }
    return {
      verdict,
      repeated: false,
      ...(step.modeChanged === undefined ? {} : { modeChanged: step.modeChanged }),
      ...(change === undefined ? {} : { limitChanged: change }),
    };
  }

  async get(itemId: string): Promise<ReviewEntry | undefined> {
    const stored = this.#items.get(itemId);
    return stored === undefined ? undefined : this.#entry(stored, this.#runtime.now());
  }

  async list(options: Page = {}): Promise<readonly ReviewEntry[]> {
    const at = this.#runtime.now();
    return page(this.#open(), options).map((stored) => this.#entry(stored, at));
  }

  async depth(): Promise<number> {
    return this.#inQueue.size;
  }

  async mode(): Promise<QueueMode> {
    return this.#mode;
  }

  async currentLimit(): Promise<number> {
    return this.#limit;
  }

  async droppedItems(options: LogPage = {}): Promise<readonly DroppedItem[]> {
    return page(options.newestFirst === true ? this.#dropped.toReversed() : this.#dropped, options);
  }

  async modeChanges(options: Page = {}): Promise<readonly ModeChange[]> {
    return page(this.#modeChanges, options);
  }

  async limitChanges(options: Page = {}): Promise<readonly LimitChange[]> {
    return page(this.#limitChanges, options);
  }

  async recentVerdicts(n = this.config.labels.window): Promise<readonly Verdict[]> {
    const count = limitOf(n) ?? 0;
    return this.#verdicts.slice(Math.max(0, this.#verdicts.length - count)).reverse();
  }

  async labelCounts(window = this.config.labels.window): Promise<Readonly<Record<string, number>>> {
    return countLabels(
      this.config.labels,
      (await this.recentVerdicts(window)).map((verdict) => verdict.label),
    );
  }

  async stats(): Promise<ReviewStats> {
    const at = this.#runtime.now();
    let claimed = 0;
    for (const entry of this.#inQueue) if (this.#held(entry, at)) claimed += 1;
    return reviewStats(this.config, {
      depth: this.#inQueue.size,
      mode: this.#mode,
      claimed,
      attemptLimit: this.#limit,
      approved: this.#approved,
      rejected: this.#verdicts.length - this.#approved,
      dropped: this.#dropped.length,
      alerts: this.#alerts.length,
      recent: await this.recentVerdicts(),
    });
  }

  async recordRun(report: RunReport): Promise<{ alert?: Alert }> {
    if (typeof report?.runId !== 'string' || report.runId.length === 0 || typeof report.budgetCapped !== 'boolean') {
      throw new TypeError(`Expected a run report { runId, budgetCapped }, got ${JSON.stringify(report)}`);
    }
    if (this.#runIds.has(report.runId)) return {};
    this.#runIds.add(report.runId);
    this.#runs.push({ runId: report.runId, budgetCapped: report.budgetCapped });
    const step = alertStep({ policy: this.config.alerts, active: this.#alerting, recent: this.#runs.slice(-this.config.alerts.window) });
    this.#alerting = step.active;
    if (step.raise === undefined) return {};
    const alert: Alert = { id: this.#runtime.generateId(), kind: 'budget_cap_share', ...step.raise, raisedAt: this.#runtime.now() };
    this.#alerts.push(frozenCopy(alert));
    this.#record([{ type: 'alert', at: alert.raisedAt, data: alert }]);
    return { alert };
  }

  async recordAlertDelivery(alertId: string, delivery: WebhookDelivery): Promise<void> {
    const index = this.#alerts.findIndex((alert) => alert.id === alertId);
    if (index >= 0) this.#alerts[index] = frozenCopy({ ...(this.#alerts[index] as Alert), webhook: delivery });
  }

  async alerts(options: LogPage = {}): Promise<readonly Alert[]> {
    return page(options.newestFirst === true ? this.#alerts.toReversed() : this.#alerts, options);
  }

  async journal(options: Page = {}): Promise<readonly JournalRow[]> {
    return page(this.#journal, options);
  }

  async verifyJournal(): Promise<JournalVerification> {
    return verifyJournal(this.#journal, this.#head);
  }

  async addReviewer(name: string, tokenHash: string): Promise<void> {
    assertReviewerEntry(name, tokenHash);
    this.#reviewers.set(name, tokenHash);
  }

  async reviewerByToken(tokenHash: string): Promise<string | undefined> {
    assertTokenHash(tokenHash);
    for (const [name, hash] of this.#reviewers) if (hash === tokenHash) return name;
    return undefined;
  }

  async releaseClaims(reviewer: string): Promise<number> {
    assertReviewer(reviewer);
    const at = this.#runtime.now();
    let released = 0;
    for (const entry of this.#inQueue)
      if (this.#held(entry, at) && entry.claim?.reviewer === reviewer) {
        delete entry.claim;
        released += 1;
      }
    return released;
  }

  async close(): Promise<void> {}

  /** Items in the queue, in review order: highest priority, then oldest. */
  #open(): Stored[] {
    return [...this.#inQueue].sort((a, b) => b.item.priority - a.item.priority || a.seq - b.seq);
  }

  #held(entry: Stored, at: number): boolean {
    return entry.claim !== undefined && entry.claim.leaseUntil > at;
  }

  #entry(stored: Stored, at: number): ReviewEntry {
    return entryOf({
      item: stored.item,
      state: stored.state,
      claims: stored.claims,
      ...(stored.claim === undefined ? {} : { claim: { ...stored.claim } }),
      ...(stored.verdict === undefined ? {} : { verdict: stored.verdict }),
      now: at,
    });
  }

  #setMode(change: ModeChange | undefined, itemId: string): void {
    if (change === undefined) return;
    this.#mode = change.to;
    this.#modeChanges.push(frozenCopy(change));
    this.#record([{ type: 'mode_change', at: change.at, data: { ...change, itemId } }]);
  }

  #record(entries: readonly { type: JournalType; at: number; data: object }[]): void {
    const { rows, head } = chainJournal(this.#head, entries);
    for (const row of rows) this.#journal.push(Object.freeze(row));
    this.#head = head;
  }
}
