import { meanSd, type MeanSd } from '../stats.js';
import { StudyOptionError } from '../study-option-error.js';
import { firstReach } from './first-reach.js';
import type { HandoffModel, QualityWeights } from './model.js';
import { resolveHandoffOptions, type HandoffStudyOptions } from './options.js';
import { runHandoffStudy, type HandoffRow } from './run-handoff-study.js';
import type { HandoffVariant } from './simulate.js';

/** When the feedback tuner's attempt limit first reached one of its bounds, over the seeds. */
export interface BoundReach {
  /** The bound: the tuner's `min` or `max`. */
  readonly limit: number;
  /** Seeds on which the limit reached the bound within the simulated minutes. */
  readonly reached: number;
  /** Minute of the first reach over the seeds that reached it; null when none did. */
  readonly minute: MeanSd | null;
  /** Earliest and latest first-reach minute over those seeds; null when none did. */
  readonly range: readonly [number, number] | null;
  /** Per seed, in seed order: the minute of the first reach, or null. */
  readonly minutes: readonly (number | null)[];
}

/** One configuration in one variant over the seeds: mean ± sd of each measure. */
export interface HandoffSeedsRow {
  readonly config: string;
  readonly variant: HandoffVariant;
  readonly productionRate: number;
  readonly reviewRate: number;
  readonly burstProbability: number;
  readonly arrivals: MeanSd;
  readonly dropped: MeanSd;
  readonly overflowPct: MeanSd;
  readonly avgWaitMin: MeanSd;
  readonly maxWaitMin: MeanSd;
  readonly approvePct: MeanSd;
  readonly finalLimit: MeanSd;
  readonly degradedMinutes: MeanSd;
  readonly agentAttempts: MeanSd;
  /** First reach of the tuner's lower and upper bound. */
  readonly firstReach: { readonly min: BoundReach; readonly max: BoundReach };
}

/** What `runHandoffSeeds` returns: the parameters it ran with and one row per configuration and variant. */
export interface HandoffSeedsStudy {
  /** The first seed; the others follow it. */
  readonly seed: number;
  readonly seeds: number;
  readonly minutes: number;
  readonly capacity: number;
  readonly draftWeights: QualityWeights;
  readonly model: HandoffModel;
  readonly rows: readonly HandoffSeedsRow[];
}

export interface HandoffSeedsOptions extends HandoffStudyOptions {
  /** Seeds to repeat the study over (`seed`, `seed + 1`, …). @default 10 */
  readonly seeds?: number;
}

/** The number of seeds, checked. */
export function seedCount(seeds: unknown = 10): number {
  if (typeof seeds === 'number' && Number.isInteger(seeds) && seeds >= 1 && seeds <= 10_000) return seeds;
  throw new StudyOptionError({ option: 'seeds', expected: 'an integer in [1, 10000]', got: String(seeds) });
}

function boundReach(rows: readonly HandoffRow[], limit: number): BoundReach {
  const minutes = rows.map((row) => firstReach(row.limitTrajectory, limit));
  const reached = minutes.filter((minute): minute is number => minute !== null);
  return {
    limit,
    reached: reached.length,
    minute: reached.length === 0 ? null : meanSd(reached),
    range: reached.length === 0 ? null : [Math.min(...reached), Math.max(...reached)],
    minutes,
  };
}

const stat = (rows: readonly HandoffRow[], key: keyof HandoffRow): MeanSd => meanSd(rows.map((row) => row[key] as number));

/**
 * The handoff study repeated over `seeds` seeds: every measure as mean ± sd, and when the feedback tuner
 * first reached each of its bounds. Deterministic: seed `s` gives the rows `runHandoffStudy({ seed: s })` gives.
 *
 * @example
 * const { rows } = runHandoffSeeds({ seeds: 20 });
 * rows.find((row) => row.config === 'A' && row.variant === 'simple')?.firstReach.max.minute; // { mean, sd }
 */
export function runHandoffSeeds(options: HandoffSeedsOptions = {}): HandoffSeedsStudy {
  const seeds = seedCount(options.seeds);
  const resolved = resolveHandoffOptions(options);
  const first = resolved.seed;
  if (first + seeds - 1 > 2 ** 31 - 1)
    throw new StudyOptionError({ option: 'seeds', expected: `at most ${2 ** 31 - first} from seed ${first}`, got: String(seeds) });
  const runs = Array.from({ length: seeds }, (_, index) => runHandoffStudy({ ...options, seed: first + index }));
  const rows = (runs[0] ?? []).map((template, index): HandoffSeedsRow => {
    const same = runs.map((run) => run[index] as HandoffRow);
    return {
      config: template.config,
      variant: template.variant,
      productionRate: template.productionRate,
      reviewRate: template.reviewRate,
      burstProbability: template.burstProbability,
      arrivals: stat(same, 'arrivals'),
      dropped: stat(same, 'dropped'),
      overflowPct: stat(same, 'overflowPct'),
      avgWaitMin: stat(same, 'avgWaitMin'),
      maxWaitMin: stat(same, 'maxWaitMin'),
      approvePct: stat(same, 'approvePct'),
      finalLimit: stat(same, 'finalLimit'),
      degradedMinutes: stat(same, 'degradedMinutes'),
      agentAttempts: stat(same, 'agentAttempts'),
      firstReach: { min: boundReach(same, resolved.model.tuner.min), max: boundReach(same, resolved.model.tuner.max) },
    };
  });
  return {
    seed: first,
    seeds,
    minutes: resolved.minutes,
    capacity: resolved.capacity,
    draftWeights: resolved.draftWeights,
    model: resolved.model,
    rows,
  };
}
