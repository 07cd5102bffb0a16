import { BACKPRESSURE } from '../../review/backpressure.js';
import { TUNER, type Tuner } from '../../review/feedback-tuner.js';

/** What a reviewer finds in an item; the queue never sees it before the review. */
export type Quality = 'good' | 'minor' | 'critical';

export const QUALITIES: readonly Quality[] = Object.freeze(['good', 'minor', 'critical']);

/** Relative weights (any positive scale) of each quality among produced items. */
export type QualityWeights = Readonly<Record<Quality, number>>;

/** One configuration of the handoff study: how fast agents produce and reviewers review. */
export interface HandoffConfig {
  /** Label in the report, e.g. `A`. */
  readonly name: string;
  /** Items the agents produce per minute (three times as many in a burst minute). */
  readonly productionRate: number;
  /** Items the reviewers take from the queue per minute. */
  readonly reviewRate: number;
  /** Probability that a minute is a burst. */
  readonly burstProbability: number;
}

/** Configurations A–D: A baseline, B overload, C bursts, D slow review (docs/experiments.md). */
export const HANDOFF_CONFIGS: readonly HandoffConfig[] = Object.freeze([
  { name: 'A', productionRate: 2, reviewRate: 3, burstProbability: 0.015 },
  { name: 'B', productionRate: 5, reviewRate: 3, burstProbability: 0.015 },
  { name: 'C', productionRate: 2, reviewRate: 3, burstProbability: 0.045 },
  { name: 'D', productionRate: 2, reviewRate: 1, burstProbability: 0.015 },
]);

/** A burst minute produces this many times the production rate. */
export const BURST_FACTOR = 3;

/** Quality of an item from a full refinement loop. */
export const QUALITY_WEIGHTS: QualityWeights = Object.freeze({ good: 70, minor: 20, critical: 10 });

/**
 * Quality of a degraded-mode draft (one attempt, no refinement). An assumption, not a measurement: the
 * refinement loop is taken to halve the defect shares, so a first attempt has twice the minor and critical
 * shares of a refined output (40 / 40 / 20).
 */
export const DRAFT_QUALITY_WEIGHTS: QualityWeights = Object.freeze({ good: 40, minor: 40, critical: 20 });

/** Probability that a reviewer approves an item of each quality. */
export const APPROVE_PROBABILITY: Readonly<Record<Quality, number>> = Object.freeze({ good: 0.95, minor: 0.3, critical: 0.1 });

/**
 * The parameters of the per-minute model besides the configurations' rates: what `study handoff` lets a
 * user calibrate to their own agents and reviewers. {@link HANDOFF_MODEL} holds the defaults.
 */
export interface HandoffModel {
  /** A burst minute produces this many times the production rate. @default 3 */
  readonly burstFactor: number;
  /** Quality of an item from a full refinement loop. @default 70 / 20 / 10 */
  readonly qualityWeights: QualityWeights;
  /** Probability that a reviewer approves an item of each quality. @default 0.95 / 0.30 / 0.10 */
  readonly approveProbability: Readonly<Record<Quality, number>>;
  /** Watermarks of the protocol variant, as fractions of capacity. @default { high: 0.8, low: 0.3 } */
  readonly watermarks: { readonly high: number; readonly low: number };
  /** The feedback tuner: start, window, bounds and rates. @default TUNER (5; 10; [3, 15]; > 0.8 raises, < 0.4 lowers) */
  readonly tuner: Tuner;
}

/** The default model: the values every report used before the study could be calibrated. */
export const HANDOFF_MODEL: HandoffModel = Object.freeze({
  burstFactor: BURST_FACTOR,
  qualityWeights: QUALITY_WEIGHTS,
  approveProbability: APPROVE_PROBABILITY,
  watermarks: Object.freeze({ high: BACKPRESSURE.high, low: BACKPRESSURE.low }),
  tuner: TUNER,
});

/** Priorities are uniform over 0..MAX_PRIORITY: the mission's priority, unrelated to a quality nobody has seen yet. */
export const MAX_PRIORITY = 2;

/**
 * The quality whose cumulative weight first exceeds `u` (uniform in [0, 1)). With the same `u`, a draft
 * is never better than a refined item, so the two variants differ only where the weights do.
 */
export function qualityOf(u: number, weights: QualityWeights): Quality {
  const total = weights.good + weights.minor + weights.critical;
  let cumulative = 0;
  for (const quality of QUALITIES) {
    cumulative += weights[quality] / total;
    if (u < cumulative) return quality;
  }
  return 'critical';
}
