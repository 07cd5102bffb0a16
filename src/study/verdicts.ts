import { round, type MeanSd } from './stats.js';

export type NoiseMode = 'configured' | 'estimated';

/** The noise-aware rule at one σ, confidence and noise mode, over the seeds. */
export interface NoiseAwareResult {
  readonly sigma: number;
  readonly noise: NoiseMode;
  readonly confidence: number;
  readonly meanSteps: MeanSd;
  readonly trueReach: MeanSd;
}

/** A calibration point below its requirement. */
export interface CalibrationShortfall {
  readonly noise: NoiseMode;
  readonly confidence: number;
  /** 100·c with σ configured; 100·c − 2 with σ estimated. */
  readonly required: number;
  readonly trueReach: number;
  /** Percentage points below `required`. */
  readonly short: number;
}

/** Whether the noise-aware rule at one σ is calibrated and matches confirm-2, judged on the mean over seeds. */
export interface NoiseAwareVerdict {
  readonly sigma: number;
  /** (a) Whether every confidence's true reach is ≥ 100·c (configured) or ≥ 100·c − 2 (estimated). */
  readonly calibrated: { readonly configured: boolean; readonly estimated: boolean };
  readonly shortfalls: readonly CalibrationShortfall[];
  /** confirm-2 at this σ: the point to match. */
  readonly confirm2: { readonly meanSteps: number; readonly trueReach: number };
  /** (b) The confidences whose true reach is ≥ confirm-2's with mean attempts ≤ confirm-2's, per noise mode. */
  readonly beatsConfirm2: { readonly configured: readonly number[]; readonly estimated: readonly number[] };
  /** Per noise mode with no confidence in `beatsConfirm2`: the nearest miss. */
  readonly closest: { readonly configured?: NearMiss; readonly estimated?: NearMiss };
}

/**
 * The calibration point nearest to matching confirm-2: the highest true reach within confirm-2's mean
 * attempts, or else the fewest attempts.
 */
export interface NearMiss {
  readonly confidence: number;
  readonly meanSteps: number;
  readonly trueReach: number;
  /** Points of true reach below confirm-2's (0 when not below). */
  readonly reachShort: number;
  /** Mean attempts above confirm-2's (0 when not above). */
  readonly attemptsOver: number;
}

/** The two ways the noise-aware rule knows the judge's σ. */
export const NOISE_MODES: readonly NoiseMode[] = ['configured', 'estimated'];

/** Points of true reach the estimated-σ rule may fall below 100·c. */
export const ESTIMATED_TOLERANCE = 2;

/** Judges calibration and the match against confirm-2 at each σ, from the rounded reported means. */
export function noiseAwareVerdicts({
  sigmas,
  noiseAware,
  confirm2,
}: {
  sigmas: readonly number[];
  noiseAware: readonly NoiseAwareResult[];
  confirm2: (sigma: number) => { meanSteps: number; trueReach: number };
}): NoiseAwareVerdict[] {
  return sigmas.map((sigma) => {
    const points = noiseAware.filter((point) => point.sigma === sigma);
    const target = confirm2(sigma);
    const shortfalls = points.flatMap((point): CalibrationShortfall[] => {
      const required = round(100 * point.confidence - (point.noise === 'estimated' ? ESTIMATED_TOLERANCE : 0));
      const trueReach = point.trueReach.mean;
      return trueReach >= required
        ? []
        : [{ noise: point.noise, confidence: point.confidence, required, trueReach, short: round(required - trueReach) }];
    });
    const beating = (noise: NoiseMode): number[] =>
      points
        .filter((point) => point.noise === noise && point.trueReach.mean >= target.trueReach && point.meanSteps.mean <= target.meanSteps)
        .map((point) => point.confidence);
    const beatsConfirm2 = { configured: beating('configured'), estimated: beating('estimated') };
    const closest: { configured?: NearMiss; estimated?: NearMiss } = {};
    for (const noise of NOISE_MODES) {
      if (beatsConfirm2[noise].length > 0) continue;
      const candidates = points.filter((point) => point.noise === noise);
      const within = candidates.filter((point) => point.meanSteps.mean <= target.meanSteps);
      const nearest =
        within.length > 0
          ? within.reduce((best, point) => (point.trueReach.mean > best.trueReach.mean ? point : best))
          : candidates.reduce((best, point) => (point.meanSteps.mean < best.meanSteps.mean ? point : best));
      closest[noise] = {
        confidence: nearest.confidence,
        meanSteps: nearest.meanSteps.mean,
        trueReach: nearest.trueReach.mean,
        reachShort: round(Math.max(0, target.trueReach - nearest.trueReach.mean)),
        attemptsOver: round(Math.max(0, nearest.meanSteps.mean - target.meanSteps)),
      };
    }
    return {
      sigma,
      calibrated: {
        configured: !shortfalls.some((item) => item.noise === 'configured'),
        estimated: !shortfalls.some((item) => item.noise === 'estimated'),
      },
      shortfalls,
      confirm2: target,
      beatsConfirm2,
      closest,
    };
  });
}
