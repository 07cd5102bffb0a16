import { meanSd, type MeanSd } from '../stats.js';
import { StudyOptionError } from '../study-option-error.js';
import type { HandoffConfig } from './model.js';
import { resolveHandoffOptions } from './options.js';
import { runHandoffStudy } from './run-handoff-study.js';
import { seedCount, type HandoffSeedsOptions } from './seeds.js';

/** The overflow of one reviewer rate over the seeds. */
export interface RateOverflow {
  readonly reviewRate: number;
  /** Overflow % over the seeds. */
  readonly overflowPct: MeanSd;
  /** The worst seed's overflow %. */
  readonly maxOverflowPct: number;
}

/** The answer for one configuration (its production rate and burst probability). */
export interface ReviewRateSolution {
  readonly config: string;
  readonly productionRate: number;
  readonly burstProbability: number;
  /**
   * The smallest whole reviewer rate (items per minute) whose mean overflow is at most `targetPct`; null
   * when no rate is: a burst minute alone brings more items than the queue holds.
   */
  readonly reviewRate: number | null;
  /** At `reviewRate` (at the highest rate that matters, `productionRate × burstFactor`, when null). */
  readonly at: RateOverflow;
  /** At `reviewRate − 1`, which overflows more than the target; null when `reviewRate` is 0 or null. */
  readonly below: RateOverflow | null;
}

/** What `solveReviewRate` returns: the parameters it ran with and one answer per configuration. */
export interface ReviewRateStudy {
  /** The first seed; the others follow it. */
  readonly seed: number;
  readonly seeds: number;
  readonly minutes: number;
  readonly capacity: number;
  readonly targetPct: number;
  readonly solutions: readonly ReviewRateSolution[];
}

export interface SolveReviewRateOptions extends HandoffSeedsOptions {
  /** Largest mean overflow %, in [0, 100]. */
  readonly targetPct: number;
}

function overflowAt(options: SolveReviewRateOptions, config: HandoffConfig, reviewRate: number, seeds: number): RateOverflow {
  const first = options.seed ?? 1;
  // Drops are the same in both variants (the depth is), so the simple model alone answers.
  const values = Array.from({ length: seeds }, (_, index) => {
    const [row] = runHandoffStudy({ ...options, seed: first + index, configs: [{ ...config, reviewRate }] });
    return (row as { overflowPct: number }).overflowPct;
  });
  return { reviewRate, overflowPct: meanSd(values), maxOverflowPct: Math.max(...values) };
}

/**
 * Answers "what reviewer rate keeps overflow under X% for my production rate?" for every configuration:
 * the smallest whole reviewer rate whose overflow, averaged over the seeds, is at most `targetPct`. More
 * reviewers never let more items overflow on the same arrivals, so a bisection over the rates finds it;
 * at `productionRate × burstFactor` per minute the queue empties every minute, and no higher rate does better.
 *
 * @example
 * const { solutions: [answer] } = solveReviewRate({ targetPct: 5, configs: [{ name: 'mine', productionRate: 4, reviewRate: 0, burstProbability: 0.02 }] });
 * answer?.reviewRate; // e.g. 5
 */
export function solveReviewRate(options: SolveReviewRateOptions): ReviewRateStudy {
  const { targetPct } = options;
  if (typeof targetPct !== 'number' || !(targetPct >= 0 && targetPct <= 100))
    throw new StudyOptionError({ option: 'targetPct', expected: 'a percentage in [0, 100]', got: String(targetPct) });
  const seeds = seedCount(options.seeds);
  const { configs, model, seed, minutes, capacity } = resolveHandoffOptions(options);
  const solutions = configs.map((config): ReviewRateSolution => {
    const solution = { config: config.name, productionRate: config.productionRate, burstProbability: config.burstProbability };
    const cache = new Map<number, RateOverflow>();
    const at = (rate: number): RateOverflow => {
      const known = cache.get(rate) ?? overflowAt(options, config, rate, seeds);
      cache.set(rate, known);
      return known;
    };
    let high = config.productionRate * model.burstFactor;
    if (at(high).overflowPct.mean > targetPct) return { ...solution, reviewRate: null, at: at(high), below: null };
    // Invariant: `high` keeps to the target; every rate below `low` does not.
    let low = 0;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (at(middle).overflowPct.mean <= targetPct) high = middle;
      else low = middle + 1;
    }
    return { ...solution, reviewRate: high, at: at(high), below: high === 0 ? null : at(high - 1) };
  });
  return { seed, seeds, minutes, capacity, targetPct, solutions };
}
