import { round } from './stats.js';

/** A count out of `n` trials, its rate and the Wilson 95% interval of the rate. */
export interface Proportion {
  readonly count: number;
  readonly n: number;
  /** `count / n`; null without trials. */
  readonly rate: number | null;
  /** Wilson 95% interval; [0, 1] without trials. */
  readonly low: number;
  readonly high: number;
}

/** z of a two-sided 95% interval. */
const Z95 = 1.959964;
/** z of 80% power. */
const Z80 = 0.841621;

/**
 * The rate `count / n` with its Wilson score 95% interval, which stays inside [0, 1] and is honest at small
 * n (3 of 3 gives [0.44, 1]).
 * @example
 * wilson(3, 3) // { count: 3, n: 3, rate: 1, low: 0.4385, high: 1 }
 */
export function wilson(count: number, n: number): Proportion {
  if (!Number.isInteger(n) || n < 0) throw new TypeError(`Expected n to be a non-negative integer, got ${n}`);
  if (!Number.isInteger(count) || count < 0 || count > n) throw new TypeError(`Expected count to be an integer in 0..${n}, got ${count}`);
  if (n === 0) return { count, n, rate: null, low: 0, high: 1 };
  const p = count / n;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { count, n, rate: round(p), low: round(Math.max(0, centre - half)), high: round(Math.min(1, centre + half)) };
}

const logFactorial = (k: number): number => {
  let sum = 0;
  for (let i = 2; i <= k; i += 1) sum += Math.log(i);
  return sum;
};

/**
 * Fisher's exact test, two-sided, of `a` of `n1` against `b` of `n2`: the chance of a split at least as
 * uneven when both share one rate.
 * @example
 * fisherExact(3, 3, 0, 3) // 0.1: even 3 of 3 against 0 of 3 is not significant at 0.05
 */
export function fisherExact(a: number, n1: number, b: number, n2: number): number {
  const total = a + b;
  const n = n1 + n2;
  const probability = (x: number): number =>
    Math.exp(
      logFactorial(total) +
        logFactorial(n - total) +
        logFactorial(n1) +
        logFactorial(n2) -
        logFactorial(x) -
        logFactorial(total - x) -
        logFactorial(n1 - x) -
        logFactorial(n2 - total + x) -
        logFactorial(n),
    );
  const observed = probability(a);
  let p = 0;
  for (let x = Math.max(0, total - n2); x <= Math.min(total, n1); x += 1) {
    const each = probability(x);
    if (each <= observed * (1 + 1e-9)) p += each;
  }
  return round(Math.min(1, p));
}

/**
 * Trials per condition that tell rate `p1` from `p2` with a two-sided test at α = 0.05 and 80% power
 * (normal approximation); null when the rates are equal.
 * @example
 * trialsPerCondition(0.75, 0.25) // 15
 */
export function trialsPerCondition(p1: number, p2: number): number | null {
  if (p1 === p2) return null;
  const mean = (p1 + p2) / 2;
  const root = Z95 * Math.sqrt(2 * mean * (1 - mean)) + Z80 * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return Math.ceil((root * root) / ((p1 - p2) * (p1 - p2)));
}
