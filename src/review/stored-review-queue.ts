import type { Brief } from '../core/brief.js';
import { alertStep, type Alert, type RunReport, type WebhookDelivery } from './alerts.js';
import { admit, nextMode, release, type ModeChange, type QueueMode } from './backpressure.js';
import { proposeFilter, type FilterProposal } from './filter-proposal.js';
import { catchingRule, ruleIdOf, ruleReviewer, type FilterRule, type FilterRuleEntry, type FilterRuleInput } from './filter-rules.js';
import { addRuleStep, caughtStep, setRuleStep, type RuleChange } from './filter-steps.js';
import { reloadRuntime, settleConfig, withFilters, type ReviewConfig, type ReviewQueueOptions, type ReviewRuntime } from './config.js';
import { boundLimit, limitChange, type LimitChange } from './feedback-tuner.js';
import { chainJournal, type JournalRow, type JournalType, type JournalVerification } from './journal.js';
import { assertLabel, countLabels } from './labels.js';
import { assertReviewer, briefItem, entryOf, leaseOf, limitOf } from './review-item.js';
import type { ReviewQueue } from './review-queue.js';
import type { EnqueueResult, ReviewStats, VerdictResult } from './reviewer-queue.js';
import { reviewStats } from './review-stats.js';
import { ask, type FastPaths, type LockedState, type QueueWrite, type ReviewStore, type StoredItem, type TxStep } from './review-store.js';
import { signedSteps } from './signed-tx.js';
import type { Signer } from '../core/signature.js';
import { assertReviewerEntry, assertTokenHash } from './reviewers.js';
import { assertForcedAdmission, type ForcedAdmission } from './forced-admission.js';
import type { ClaimOptions, DroppedItem, EnqueueOptions, LogPage, Page, ReviewEntry, ReviewItem, Verdict, VerdictInput } from './types.js';
import { assertVerdictInput, verdictAction } from './verdict-rules.js';

type JournalEntryInput = { type: JournalType; at: number; data: object };

/** The settings a queue runs with, and the stored version they are. */
export interface Settled {
  readonly runtime: ReviewRuntime;
  readonly settingsVersion: number;
  /** Signs the journal entries the queue appends (`ReviewQueueOptions.signer`). */
  readonly signer?: Signer;
}

/**
 * Settles the settings stored with the queue against `options`, inside the opening transaction. A change
 * is journaled, and what the new settings make of the queue's state too: the mode the depth now calls
 * for, an attempt limit moved into new bounds.
 */
export function* settle(options: ReviewQueueOptions): TxStep<Settled> {
  const { signer } = options;
  const settled = yield* signedSteps(settleSettings(options), signer);
  return signer === undefined ? settled : { ...settled, signer };
}

function* settleSettings(options: ReviewQueueOptions): TxStep<Settled> {
  const state = yield* ask((tx) => tx.state());
  const stored = yield* ask((tx) => tx.settings());
  const { runtime, changed } = settleConfig(stored.settings, options);
  if (changed === undefined) return { runtime, settingsVersion: stored.version };
  const { backpressure, tuner } = runtime.config;
  const at = runtime.now();
  const entries: JournalEntryInput[] = [{ type: 'settings', at, data: changed }];
  const mode = nextMode({ mode: state.mode, depth: state.depth, policy: backpressure });
  const modeChange: ModeChange | undefined = mode === state.mode ? undefined : { from: state.mode, to: mode, depth: state.depth, at };
  if (modeChange !== undefined) entries.push({ type: 'mode_change', at, data: { ...modeChange, cause: 'settings' } });
  const window = [...(yield* ask((tx) => tx.recentVerdicts(tuner.window)))].reverse();
  const bound = boundLimit({ limit: state.attemptLimit, window, policy: tuner, at });
  if (bound !== undefined) entries.push({ type: 'limit_change', at, data: bound });
  yield* ask((tx) =>
    tx.write({
      settings: JSON.stringify(runtime.config),
      ...(modeChange === undefined && bound === undefined
        ? {}
        : { state: { ...stateOf(state), mode, attemptLimit: bound?.to ?? state.attemptLimit } }),
      ...(modeChange === undefined ? {} : { modeChange }),
      ...(bound === undefined ? {} : { limitChange: bound }),
      journal: chainJournal(state.head, entries),
    }),
  );
  return { runtime, settingsVersion: stored.version + 1 };
}

/**
 * The review queue (docs/review.md) over any {@link ReviewStore}, in all three of its views — the
 * reviewer's, the administrator's and the auditor's (`ReviewQueue`): every decision — backpressure,
 * verdict rules, the feedback tuner, alerts, the journal — is made here, once, inside the store's write
 * transaction; the store only reads and writes rows. Where the store has {@link FastPaths}, the common
 * enqueue and verdict try them first and fall back to the transaction.
 */
export class StoredReviewQueue implements ReviewQueue {
  #runtime: ReviewRuntime;
  /** The version of the stored settings `#runtime` holds; another process may have stored newer ones. */
  #settingsVersion: number;
  readonly #store: ReviewStore;
  readonly #signer: Signer | undefined;
  /** The store's one-statement paths, not taken with a signer (see `ReviewQueueOptions.signer`). */
  readonly #fast: FastPaths | undefined;

  protected constructor(store: ReviewStore, { runtime, settingsVersion, signer }: Settled) {
    this.#store = store;
    this.#signer = signer;
    this.#fast = signer === undefined ? store.fast : undefined;
    this.#runtime = runtime;
    this.#settingsVersion = settingsVersion;
  }

  get config(): ReviewConfig {
    return this.#runtime.config;
  }

  async enqueue(brief: Brief, { tags }: EnqueueOptions = {}): Promise<EnqueueResult> {
    const { now, generateId } = this.#runtime;
    const at = now();
    const item = briefItem(brief, { id: generateId(), ...(tags === undefined ? {} : { tags }), enqueuedAt: at });
    const fast = this.#fast;
    // An item a rule in force here catches takes the transaction; a rule added elsewhere since changed
    // the settings version, which the fast path checks.
    if (fast !== undefined && catchingRule(this.config.filters, item) === undefined) {
      const mode = await fast.enqueue({ item, policy: this.config.backpressure, settingsVersion: this.#settingsVersion });
      if (mode !== undefined) return { item, mode };
    }
    return this.#transaction(this.#admit(item, at));
  }

  *#admit(item: ReviewItem, at: number): TxStep<EnqueueResult> {
    const state = yield* this.#begin();
    const before = yield* ask((tx) => tx.byRun(item.runId));
    if (before !== undefined)
      return { ...(before.state === 'dropped' ? { dropped: before.item } : { item: before.item }), mode: state.mode, repeated: true };
    const rule = catchingRule(this.config.filters, item);
    if (rule !== undefined) return yield* caughtStep(state, this.config, { item, rule, at, verdictId: this.#runtime.generateId() });
    const { backpressure } = this.config;
    const { mode, depth } = state;
    // Only an enqueue at capacity drops, and only the lowest droppable item can be the victim.
    const lowest = depth >= backpressure.capacity ? yield* ask((tx) => tx.lowest(at)) : undefined;
    const droppable = lowest === undefined ? [] : [{ priority: lowest.item.priority, seq: lowest.seq, item: lowest.item }];
    const incoming = { priority: item.priority, seq: Number.POSITIVE_INFINITY, item };
    const step = admit({ policy: backpressure, mode, depth, droppable, incoming, at });
    const victim = step.drop;
    const dropped: DroppedItem | undefined =
      victim === undefined ? undefined : { item: victim.item, droppedAt: at, depth, displacedBy: item.id };
    const entries: JournalEntryInput[] = [
      ...(dropped === undefined ? [] : [{ type: 'drop' as const, at, data: dropped }]),
      ...modeEntry(step.modeChanged, item.id),
    ];
    yield* ask((tx) =>
      tx.write({
        insert: { item, state: victim === incoming ? 'dropped' : 'open' },
        ...(dropped === undefined ? {} : { drop: { itemId: dropped.item.id, droppedAt: at, depth, displacedBy: item.id } }),
        state: { ...stateOf(state), depth: step.depth, mode: step.mode, dropped: state.dropped + (dropped === undefined ? 0 : 1) },
        ...(step.modeChanged === undefined ? {} : { modeChange: step.modeChanged }),
        ...journalOf(state, entries),
      }),
    );
    return {
      ...(victim === incoming ? {} : { item }),
      ...(dropped === undefined ? {} : { dropped: dropped.item }),
      mode: step.mode,
      ...(step.modeChanged === undefined ? {} : { modeChanged: step.modeChanged }),
    };
  }

  async claim(reviewer: string, options: ClaimOptions = {}): Promise<ReviewEntry | undefined> {
    assertReviewer(reviewer);
    const lease = leaseOf(options.leaseMs);
    const at = this.#runtime.now();
    const stored = await this.#store.claim(reviewer, at, at + lease);
    return stored === undefined ? undefined : entry(stored, at);
  }

  async verdict(itemId: string, input: VerdictInput): Promise<VerdictResult> {
    // A label another process added: read the settings before refusing it.
    if (!this.config.labels.labels.includes(input?.label)) this.#reload(await this.#store.settings());
    assertVerdictInput(this.config.labels, itemId, input);
    const { now, generateId } = this.#runtime;
    const at = now();
    // One id whichever path decides, taken only when a verdict is stored.
    let id: string | undefined;
    const verdictId = (): string => (id ??= generateId());
    const fast = this.#fast;
    if (fast !== undefined) {
      const verdict = await fast.verdict({ itemId, input, at, verdictId, config: this.config, settingsVersion: this.#settingsVersion });
      if (verdict !== undefined) return { verdict, repeated: false };
    }
    return this.#transaction(this.#decide(itemId, input, at, verdictId));
  }

  *#decide(itemId: string, input: VerdictInput, at: number, verdictId: () => string): TxStep<VerdictResult> {
    // The item first, then the state row: verdicts on different items check and refuse in parallel.
    const target = yield* ask((tx) => tx.item(itemId));
    const action = verdictAction({ itemId, target, input, now: at });
    if ('repeat' in action) return { verdict: action.repeat, repeated: true };
    const state = yield* this.#begin();
    const { backpressure, tuner } = this.config;
    const verdict: Verdict = {
      id: verdictId(),
      itemId,
      runId: (target as StoredItem).item.runId,
      reviewer: input.reviewer,
      decision: input.decision,
      label: input.label,
      ...(input.comment === undefined ? {} : { comment: input.comment }),
      decidedAt: at,
    };
    const step = release({ policy: backpressure, mode: state.mode, depth: state.depth, at });
    const window = [...(yield* ask((tx) => tx.recentVerdicts(tuner.window - 1)))].reverse().concat(verdict);
    const change = limitChange({ limit: state.attemptLimit, window, policy: tuner, at });
    yield* ask((tx) =>
      tx.write({
        verdict: { verdict, window },
        state: {
          ...stateOf(state),
          depth: step.depth,
          mode: step.mode,
          verdicts: state.verdicts + 1,
          approved: state.approved + (verdict.decision === 'approve' ? 1 : 0),
          attemptLimit: change?.to ?? state.attemptLimit,
        },
        ...(step.modeChanged === undefined ? {} : { modeChange: step.modeChanged }),
        ...(change === undefined ? {} : { limitChange: change }),
        ...journalOf(state, [
          { type: 'verdict', at, data: verdict },
          ...modeEntry(step.modeChanged, itemId),
          ...(change === undefined ? [] : [{ type: 'limit_change' as const, at, data: change }]),
        ]),
      }),
    );
    return {
      verdict,
      repeated: false,
      ...(step.modeChanged === undefined ? {} : { modeChanged: step.modeChanged }),
      ...(change === undefined ? {} : { limitChanged: change }),
    };
  }

  async get(itemId: string): Promise<ReviewEntry | undefined> {
    const stored = await this.#store.get(itemId);
    return stored === undefined ? undefined : entry(stored, this.#runtime.now());
  }

  async list(page: Page = {}): Promise<readonly ReviewEntry[]> {
    const at = this.#runtime.now();
    return (await this.#store.list(limitOf(page.limit))).map((stored) => entry(stored, at));
  }

  async depth(): Promise<number> {
    return (await this.#store.state()).depth;
  }

  async mode(): Promise<QueueMode> {
    return (await this.#store.state()).mode;
  }

  async currentLimit(): Promise<number> {
    return (await this.#store.state()).attemptLimit;
  }

  async droppedItems(page: LogPage = {}): Promise<readonly DroppedItem[]> {
    return this.#store.droppedItems({ limit: limitOf(page.limit), newestFirst: page.newestFirst === true });
  }

  async modeChanges(page: Page = {}): Promise<readonly ModeChange[]> {
    return this.#store.modeChanges(limitOf(page.limit));
  }

  async limitChanges(page: Page = {}): Promise<readonly LimitChange[]> {
    return this.#store.limitChanges(limitOf(page.limit));
  }

  async recentVerdicts(n = this.config.labels.window): Promise<readonly Verdict[]> {
    return this.#store.recentVerdicts(limitOf(n) ?? 0);
  }

  async labelCounts(window = this.config.labels.window): Promise<Readonly<Record<string, number>>> {
    return countLabels(
      this.config.labels,
      (await this.recentVerdicts(window)).map((verdict) => verdict.label),
    );
  }

  async stats(): Promise<ReviewStats> {
    // The rules another connection added since, so that their labels are no longer suggested.
    this.#reload(await this.#store.settings());
    const at = this.#runtime.now();
    const { state, claimed, recent } = await this.#store.snapshot(at, this.config.labels.window);
    return reviewStats(this.config, {
      depth: state.depth,
      mode: state.mode,
      claimed,
      attemptLimit: state.attemptLimit,
      approved: state.approved,
      rejected: state.verdicts - state.approved,
      dropped: state.dropped,
      alerts: state.alerts,
      recent,
    });
  }

  async recordRun(report: RunReport): Promise<{ alert?: Alert }> {
    if (typeof report?.runId !== 'string' || report.runId.length === 0 || typeof report.budgetCapped !== 'boolean') {
      throw new TypeError(`Expected a run report { runId, budgetCapped }, got ${JSON.stringify(report)}`);
    }
    return this.#transaction(this.#report({ runId: report.runId, budgetCapped: report.budgetCapped }, this.#runtime.now()));
  }

  *#report(report: RunReport, at: number): TxStep<{ alert?: Alert }> {
    const state = yield* this.#begin();
    if (!(yield* ask((tx) => tx.addReport(report, at)))) return {};
    const { alerts } = this.config;
    const recent = [...(yield* ask((tx) => tx.recentReports(alerts.window)))].reverse();
    const step = alertStep({ policy: alerts, active: state.alertActive, recent });
    const alert: Alert | undefined =
      step.raise === undefined ? undefined : { id: this.#runtime.generateId(), kind: 'budget_cap_share', ...step.raise, raisedAt: at };
    if (step.active === state.alertActive && alert === undefined) return {};
    yield* ask((tx) =>
      tx.write({
        state: { ...stateOf(state), alertActive: step.active, alerts: state.alerts + (alert === undefined ? 0 : 1) },
        ...(alert === undefined ? {} : { alert, ...journalOf(state, [{ type: 'alert', at, data: alert }]) }),
      }),
    );
    return alert === undefined ? {} : { alert };
  }

  async recordAlertDelivery(alertId: string, delivery: WebhookDelivery): Promise<void> {
    await this.#store.setDelivery(alertId, delivery);
  }

  async alerts(page: LogPage = {}): Promise<readonly Alert[]> {
    return this.#store.alerts({ limit: limitOf(page.limit), newestFirst: page.newestFirst === true });
  }

  async journal(page: Page = {}): Promise<readonly JournalRow[]> {
    return this.#store.journal(limitOf(page.limit));
  }

  async verifyJournal(): Promise<JournalVerification> {
    return this.#store.verifyJournal();
  }

  async addReviewer(name: string, tokenHash: string): Promise<void> {
    assertReviewerEntry(name, tokenHash);
    await this.#store.addReviewer(name, tokenHash, this.#runtime.now());
  }

  async reviewerByToken(tokenHash: string): Promise<string | undefined> {
    assertTokenHash(tokenHash);
    return this.#store.reviewerByToken(tokenHash);
  }

  async releaseClaims(reviewer: string): Promise<number> {
    assertReviewer(reviewer);
    return this.#store.releaseClaims(reviewer, this.#runtime.now());
  }

  async addFilterRule(input: FilterRuleInput): Promise<{ rule: FilterRule; repeated: boolean }> {
    const { rule, repeated } = await this.#changeRules((state) => addRuleStep(state, this.config, input, this.#runtime.now()));
    return { rule, repeated };
  }

  async setFilterRule(id: string, { enabled, by }: { readonly enabled: boolean; readonly by: string }): Promise<FilterRule> {
    if (typeof enabled !== 'boolean') throw new TypeError(`Expected enabled to be true or false, got ${JSON.stringify(enabled)}`);
    assertReviewer(by);
    return (await this.#changeRules((state) => setRuleStep(state, this.config, { id, enabled, by }, this.#runtime.now()))).rule;
  }

  async filterRules(): Promise<readonly FilterRuleEntry[]> {
    this.#reload(await this.#store.settings());
    const caught = await this.#store.rulesVerdicts();
    return this.config.filters.map((rule) => ({ ...rule, caught: caught.get(ruleReviewer(rule.id)) ?? 0 }));
  }

  async proposeFilterRule(label: string): Promise<FilterProposal> {
    this.#reload(await this.#store.settings());
    assertLabel(this.config.labels, label, 'proposal');
    const given = (await this.recentVerdicts()).filter((verdict) => verdict.label === label && ruleIdOf(verdict.reviewer) === undefined);
    const items = await Promise.all(given.map(async (verdict) => (await this.#store.get(verdict.itemId))?.item));
    return proposeFilter(
      label,
      items.filter((item) => item !== undefined),
    );
  }

  /** Runs a rule change in a write transaction and puts the settings it leaves in force here. */
  async recordAdmission(admission: ForcedAdmission): Promise<{ seq: number }> {
    assertForcedAdmission(admission);
    const { runId, by, overrides, mode, into } = admission;
    const data = { runId, by, overrides: overrides.map(({ code, reason }) => ({ code, reason })), mode, into };
    const at = this.#runtime.now();
    return this.#transaction(
      this.#withState(function* (state): TxStep<{ seq: number }> {
        const journal = chainJournal(state.head, [{ type: 'admission', at, data }]);
        yield* ask((tx) => tx.write({ journal }));
        return { seq: state.head.count };
      }),
    );
  }

  async #changeRules(change: (state: LockedState) => TxStep<RuleChange>): Promise<RuleChange> {
    const result = await this.#transaction(this.#withState(change));
    if (!result.repeated) {
      this.#runtime = withFilters(this.#runtime, result.config.filters);
      this.#settingsVersion += 1;
    }
    return result;
  }

  *#withState<T>(step: (state: LockedState) => TxStep<T>): TxStep<T> {
    return yield* step(yield* this.#begin());
  }

  async close(): Promise<void> {
    await this.#store.close();
  }

  /** Runs `step` in one write transaction of the store, its journal rows signed when the queue has a signer. */
  #transaction<T>(step: TxStep<T>): Promise<T> {
    return this.#store.transaction(signedSteps(step, this.#signer));
  }

  /** The state row, held, with the settings as stored: another process may have changed them. */
  *#begin(): TxStep<LockedState> {
    const state = yield* ask((tx) => tx.state());
    if (state.settingsVersion !== this.#settingsVersion) this.#reload(yield* ask((tx) => tx.settings()));
    return state;
  }

  #reload({ settings, version }: { settings: string | null; version: number }): void {
    if (settings === null || version === this.#settingsVersion) return;
    this.#runtime = reloadRuntime(this.#runtime, settings);
    this.#settingsVersion = version;
  }
}

const entry = (stored: StoredItem, now: number): ReviewEntry => entryOf({ ...stored, now });

const stateOf = ({ head: _head, settingsVersion: _version, ...state }: LockedState): QueueWrite['state'] & object => state;

function journalOf(state: LockedState, entries: readonly JournalEntryInput[]): Pick<QueueWrite, 'journal'> {
  return entries.length === 0 ? {} : { journal: chainJournal(state.head, entries) };
}

function modeEntry(change: ModeChange | undefined, itemId: string): JournalEntryInput[] {
  return change === undefined ? [] : [{ type: 'mode_change', at: change.at, data: { ...change, itemId } }];
}
