import { randomUUID } from 'node:crypto';
import { alertPolicy, type AlertPolicy } from './alerts.js';
import { backpressure, type Backpressure } from './backpressure.js';
import { tuner, type Tuner } from './feedback-tuner.js';
import { parseFilterRules, type FilterRule } from './filter-rules.js';
import { labelPolicy, VERDICT_LABELS, type LabelPolicy } from './labels.js';
import { canonicalJson } from '../core/canonical-json.js';
import type { Signer } from '../core/signature.js';

/** Settings every review queue backend takes. */
export interface ReviewQueueOptions {
  /** Capacity and watermarks. @default { capacity: 50, high: 0.8, low: 0.3 } */
  readonly backpressure?: Partial<Backpressure>;
  /**
   * Verdict labels added to the five of {@link VERDICT_LABELS} (snake_case).
   * @example ['missing_tests', 'license_issue']
   */
  readonly labels?: readonly string[];
  /** Verdicts (newest first) that label counts, suggestions and the approve rate in `stats()` cover. @default 50 */
  readonly labelWindow?: number;
  /** A label seen more than this many times in the window raises a filter-rule suggestion. @default 3 */
  readonly suggestAbove?: number;
  /** The feedback tuner. @default { initial: 5, window: 10, min: 3, max: 15, raiseAbove: 0.8, lowerBelow: 0.4 } */
  readonly tuner?: Partial<Tuner>;
  /** Budget-cap alerts. @default { threshold: 0.5, window: 20 } */
  readonly alerts?: Partial<AlertPolicy>;
  /**
   * Signs every journal entry this queue appends (docs/review.md, 'Signed entries'): the ledger's signing
   * key, as `redline run` opens it. Without one, entries are appended unsigned. The one-statement paths
   * of a PostgreSQL queue (`FastPaths`) are not taken with a signer: an entry is signed over the hash
   * before it, which only the write transaction knows.
   */
  readonly signer?: Signer;
  /** Clock and ids, for tests and simulations. */
  readonly _internal?: { readonly now?: () => number; readonly generateId?: () => string };
}

/** The resolved, frozen settings a queue runs with. */
export interface ReviewConfig {
  readonly backpressure: Backpressure;
  readonly labels: LabelPolicy;
  readonly tuner: Tuner;
  readonly alerts: AlertPolicy;
  /** Automatic filter rules, in the order they were added (`addFilterRule`), disabled ones included. */
  readonly filters: readonly FilterRule[];
}

/** What an adapter needs besides the settings. */
export interface ReviewRuntime {
  readonly config: ReviewConfig;
  readonly now: () => number;
  readonly generateId: () => string;
}

/** Settings keys of {@link ReviewQueueOptions}: any of them given means the caller sets the queue's settings. */
const SETTING_KEYS = ['backpressure', 'labels', 'labelWindow', 'suggestAbove', 'tuner', 'alerts'] as const;

/** The options that resolve to `config` again. */
function optionsOf(config: ReviewConfig): ReviewQueueOptions {
  return {
    backpressure: config.backpressure,
    labels: config.labels.labels.filter((label) => !(VERDICT_LABELS as readonly string[]).includes(label)),
    labelWindow: config.labels.window,
    suggestAbove: config.labels.suggestAbove,
    tuner: config.tuner,
    alerts: config.alerts,
  };
}

/** New tuner settings over stored ones: a stored start the new bounds exclude moves into them (a given one must fit). */
function mergeTuner(stored: Tuner, given: Partial<Tuner> | undefined): Partial<Tuner> {
  const merged = { ...stored, ...given };
  return given?.initial === undefined ? { ...merged, initial: Math.min(Math.max(merged.initial, merged.min), merged.max) } : merged;
}

/** What opening a queue does to the settings stored with it. */
export interface SettledConfig {
  readonly runtime: ReviewRuntime;
  /** Present when the stored settings change (or are stored the first time): the queue journals it. */
  readonly changed?: { readonly from?: ReviewConfig; readonly to: ReviewConfig };
}

/**
 * The settings a queue runs with, given those stored with it (JSON, absent on a new queue) and the
 * caller's options: settings live with the queue so every process agrees. Options given override the
 * stored ones key by key (`labels` replaces the added labels); without any, the stored settings hold.
 */
export function settleConfig(stored: string | undefined | null, options: ReviewQueueOptions = {}): SettledConfig {
  if (stored === undefined || stored === null) {
    const runtime = resolveReviewOptions(options);
    return { runtime, changed: { to: runtime.config } };
  }
  let before: ReviewConfig;
  try {
    const parsed = JSON.parse(stored) as ReviewConfig;
    before = resolveReviewOptions(optionsOf(parsed), parseFilterRules(parsed.filters ?? [])).config;
  } catch (error) {
    throw new TypeError(`The review queue's stored settings are unreadable (${(error as Error).message}): ${stored.slice(0, 200)}`, {
      cause: error,
    });
  }
  const given = SETTING_KEYS.some((key) => options[key] !== undefined);
  const base = optionsOf(before);
  const internal = options._internal === undefined ? {} : { _internal: options._internal };
  if (!given) return { runtime: resolveReviewOptions({ ...base, ...internal }, before.filters) };
  // Rules are not an option: they are added and disabled one by one, and carried over here.
  const runtime = resolveReviewOptions(
    {
      ...internal,
      backpressure: { ...base.backpressure, ...options.backpressure },
      labels: options.labels ?? base.labels ?? [],
      labelWindow: options.labelWindow ?? before.labels.window,
      suggestAbove: options.suggestAbove ?? before.labels.suggestAbove,
      tuner: mergeTuner(before.tuner, options.tuner),
      alerts: { ...base.alerts, ...options.alerts },
    },
    before.filters,
  );
  return canonicalJson(runtime.config) === canonicalJson(before) ? { runtime } : { runtime, changed: { from: before, to: runtime.config } };
}

/** `runtime` with the settings stored with the queue (JSON), as another process changed them; same clock and ids. */
export function reloadRuntime(runtime: ReviewRuntime, stored: string): ReviewRuntime {
  return settleConfig(stored, { _internal: { now: runtime.now, generateId: runtime.generateId } }).runtime;
}

/** `runtime` with `filters` in force instead of its rules. */
export function withFilters(runtime: ReviewRuntime, filters: readonly FilterRule[]): ReviewRuntime {
  return { ...runtime, config: Object.freeze({ ...runtime.config, filters: Object.freeze([...filters]) }) };
}

export function resolveReviewOptions(options: ReviewQueueOptions = {}, filters: readonly FilterRule[] = []): ReviewRuntime {
  const config: ReviewConfig = Object.freeze({
    backpressure: backpressure(options.backpressure),
    labels: labelPolicy({ extra: options.labels ?? [], window: options.labelWindow ?? 50, suggestAbove: options.suggestAbove ?? 3 }),
    tuner: tuner(options.tuner),
    alerts: alertPolicy(options.alerts),
    filters: Object.freeze([...filters]),
  });
  return { config, now: options._internal?.now ?? Date.now, generateId: options._internal?.generateId ?? randomUUID };
}
