import { randomUUID } from 'node:crypto';
import { alertPolicy, type AlertPolicy } from './alerts.js';
import { backpressure, type Backpressure } from './backpressure.js';
import { tuner, type Tuner } from './feedback-tuner.js';
import { labelPolicy, type LabelPolicy } from './labels.js';

/** Settings every review queue backend takes. */
export interface ReviewQueueOptions {
  /** Capacity and watermarks. @default { capacity: 50, high: 0.8, low: 0.3 } */
  readonly backpressure?: Partial<Backpressure>;
  /**
   * Verdict labels added to SPEC §5's five (snake_case).
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
  /** Clock and ids, for tests and simulations. */
  readonly _internal?: { readonly now?: () => number; readonly generateId?: () => string };
}

/** The resolved, frozen settings a queue runs with. */
export interface ReviewConfig {
  readonly backpressure: Backpressure;
  readonly labels: LabelPolicy;
  readonly tuner: Tuner;
  readonly alerts: AlertPolicy;
}

/** What an adapter needs besides the settings. */
export interface ReviewRuntime {
  readonly config: ReviewConfig;
  readonly now: () => number;
  readonly generateId: () => string;
}

export function resolveReviewOptions(options: ReviewQueueOptions = {}): ReviewRuntime {
  const config: ReviewConfig = Object.freeze({
    backpressure: backpressure(options.backpressure),
    labels: labelPolicy({ extra: options.labels ?? [], window: options.labelWindow ?? 50, suggestAbove: options.suggestAbove ?? 3 }),
    tuner: tuner(options.tuner),
    alerts: alertPolicy(options.alerts),
  });
  return { config, now: options._internal?.now ?? Date.now, generateId: options._internal?.generateId ?? randomUUID };
}
