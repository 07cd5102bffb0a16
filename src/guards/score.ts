import { expectInteger, expectNumber } from './expect.js';
import type { AttemptSummary, Guard } from './guard.js';

/**
 * Slack for floating-point sums: `0.8 + 0.05` is `0.8500000000000001`, yet a score of 0.85 clears
 * `margin(0.05, 0.8)`. Judges report scores far coarser than this.
 */
const EPSILON = 1e-9;

const atLeast = (value: number, bar: number): boolean => value >= bar - EPSILON;

const format = (value: number): string => String(Number(value.toFixed(4)));

/**
 * The scores of the last `k` attempts, or `undefined` when there are fewer than `k` attempts or one of
 * them has no score: "consecutive" means consecutive attempts, so a missing score breaks the run.
 */
function lastScores(recent: readonly AttemptSummary[], k: number): number[] | undefined {
  if (recent.length < k) return undefined;
  const scores: number[] = [];
  for (const { score } of recent.slice(-k)) {
    if (score === undefined) return undefined;
    scores.push(score);
  }
  return scores;
}

/** A guard that stops with `complete` when the last score clears `floor`. */
function lastScoreGuard(name: string, reason: string, floor: number, clause: string): Guard {
  return {
    name,
    lookback: 1,
    evaluate({ recent }) {
      const score = recent.at(-1)?.score;
      if (score === undefined || !atLeast(score, floor)) return undefined;
      return { guard: name, reason, outcome: 'complete', detail: `score ${format(score)} ≥ ${clause}` };
    },
  };
}

/**
 * Stops (`complete`, reason `threshold`) when the last score is at least `bar`.
 * Believes a single noisy score; prefer {@link confirm} or {@link smooth} when the judge is noisy.
 *
 * @example
 * threshold(0.8) // stops on the first attempt scored ≥ 0.8
 */
export function threshold(bar: number): Guard {
  expectNumber('bar', bar, 0, 1);
  return lastScoreGuard(`threshold(${bar})`, 'threshold', bar, `bar ${bar}`);
}

/**
 * Stops (`complete`, reason `margin`) when the last score is at least `bar + m`: a threshold with a
 * safety margin against judge noise.
 *
 * @example
 * margin(0.05, 0.8) // stops on the first attempt scored ≥ 0.85
 */
export function margin(m: number, bar: number): Guard {
  expectNumber('m', m, 0, 1);
  expectNumber('bar', bar, 0, 1);
  return lastScoreGuard(`margin(${m}, ${bar})`, 'margin', bar + m, `bar ${bar} + margin ${m}`);
}

/**
 * Stops (`complete`, reason `confirm`) when the last `k` attempts all scored at least `bar`.
 * An attempt without a score breaks the run. Reads `k` attempts.
 *
 * @example
 * confirm(2, 0.8) // two attempts in a row scored ≥ 0.8
 */
export function confirm(k: number, bar: number): Guard {
  expectInteger('k', k, 1);
  expectNumber('bar', bar, 0, 1);
  const name = `confirm(${k}, ${bar})`;
  return {
    name,
    lookback: k,
    evaluate({ recent }) {
      const scores = lastScores(recent, k);
      if (scores === undefined || !scores.every((score) => atLeast(score, bar))) return undefined;
      const detail = `last ${k} scores ${scores.map(format).join(', ')} all ≥ bar ${bar}`;
      return { guard: name, reason: 'confirm', outcome: 'complete', detail };
    },
  };
}

/**
 * Stops (`complete`, reason `smooth`) when the mean score of the last `k` attempts is at least `bar`.
 * Needs `k` consecutive scored attempts. Reads `k` attempts.
 *
 * @example
 * smooth(2, 0.8) // scores 0.75 then 0.85 stop; 0.7 then 0.85 do not
 */
export function smooth(k: number, bar: number): Guard {
  expectInteger('k', k, 1);
  expectNumber('bar', bar, 0, 1);
  const name = `smooth(${k}, ${bar})`;
  return {
    name,
    lookback: k,
    evaluate({ recent }) {
      const scores = lastScores(recent, k);
      if (scores === undefined) return undefined;
      const mean = scores.reduce((sum, score) => sum + score, 0) / k;
      if (!atLeast(mean, bar)) return undefined;
      const detail = `mean ${format(mean)} of the last ${k} scores ≥ bar ${bar}`;
      return { guard: name, reason: 'smooth', outcome: 'complete', detail };
    },
  };
}

/**
 * Stops (`failed_with_evidence`, reason `plateau`) when the last `n` attempts are all scored and their
 * scores lie within `delta` of each other (max − min ≤ delta): refining no longer moves the score.
 * Reads `n` attempts.
 *
 * @example
 * plateau(0.02, 3) // scores 0.61, 0.62, 0.6 stop
 */
export function plateau(delta: number, n: number): Guard {
  expectNumber('delta', delta, 0, 1);
  expectInteger('n', n, 2);
  const name = `plateau(${delta}, ${n})`;
  return {
    name,
    lookback: n,
    evaluate({ recent }) {
      const scores = lastScores(recent, n);
      if (scores === undefined) return undefined;
      const range = Math.max(...scores) - Math.min(...scores);
      if (range > delta + EPSILON) return undefined;
      const detail = `last ${n} scores ${scores.map(format).join(', ')} within ${delta} of each other`;
      return { guard: name, reason: 'plateau', outcome: 'failed_with_evidence', detail };
    },
  };
}
