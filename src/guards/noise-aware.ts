import { expectNumber } from './expect.js';
import type { AttemptSummary, Guard } from './guard.js';
import { logNormalCdf, normalCdf } from './normal.js';

/**
 * The model behind {@link noiseAware} (docs/stop-rules.md). True quality rises and saturates,
 * `q(t) = 1 − (1 − s0)·e^(−r·(t − 1))`, and the judge reports `q(t) + ε`, `ε ~ N(0, σ²)`, clipped to [0, 1]
 * (a clipped score is used as reported). Prior: `s0 ~ Uniform(0, 1)`, `r ~ LogUniform(0.02, 5)`, and when σ
 * is estimated, `σ ~ Uniform(0.01, 0.4)` (uniform rather than log-uniform: with a handful of scores a
 * log-uniform prior favours a small σ and makes the rule overconfident). For a fixed `r` the model is linear in `s0`, so `s0` is
 * integrated exactly (a truncated normal); `r` and `σ` are integrated on log-spaced grids.
 */
export const NOISE_AWARE_PRIOR = Object.freeze({ s0: [0, 1], r: [0.02, 5], sigma: [0.01, 0.4], grid: { r: 32, sigma: 8 } });

/** Standard deviation of the model's own misfit (real curves are not exactly exponential), added to σ. */
const MODEL_ERROR = 0.015;

/** Scored attempts the rule reads: the last this many. */
const LOOKBACK = 64;

function logGrid([low, high]: readonly number[], points: number): number[] {
  const a = Math.log(low as number);
  const b = Math.log(high as number);
  return Array.from({ length: points }, (_, k) => Math.exp(a + ((k + 0.5) / points) * (b - a)));
}

const RATES = logGrid(NOISE_AWARE_PRIOR.r, NOISE_AWARE_PRIOR.grid.r);
const ESTIMATED_SIGMAS = ((): number[] => {
  const [low, high] = NOISE_AWARE_PRIOR.sigma as [number, number];
  const points = NOISE_AWARE_PRIOR.grid.sigma;
  return Array.from({ length: points }, (_, k) => low + ((k + 0.5) / points) * (high - low));
})();

/** e^(−r·(t − 1)) per rate, for t = 1, 2, …, computed once per t. */
const decayCache: Float64Array[] = [];
function decay(t: number): Float64Array {
  let row = decayCache[t];
  if (row === undefined) {
    row = Float64Array.from(RATES, (r) => Math.exp(-r * (t - 1)));
    decayCache[t] = row;
  }
  return row;
}

/** Φ, saturated beyond ±8.3 standard deviations (where it is 1 or 0 in double precision anyway). */
const cdf = (x: number): number => (x > 8.3 ? 1 : x < -8.3 ? 0 : normalCdf(x));

/** log(Φ(b) − Φ(a)) for a < b: directly where the difference is representable, in log space deep in a tail. */
function logNormalInterval(a: number, b: number): number {
  if (a > 0) return logNormalInterval(-b, -a);
  if (b > -5) {
    const difference = normalCdf(b) - normalCdf(a);
    if (difference > 1e-12) return Math.log(difference);
  }
  const high = logNormalCdf(b);
  const low = logNormalCdf(a);
  return high + Math.log1p(-Math.exp(low - high));
}

/** Scratch space of one posterior evaluation (evaluations never interleave: they are synchronous). */
const MAX_CELLS = NOISE_AWARE_PRIOR.grid.r * NOISE_AWARE_PRIOR.grid.sigma;
const cellLogWeight = new Float64Array(MAX_CELLS);
const cellMean = new Float64Array(MAX_CELLS);
const cellTau = new Float64Array(MAX_CELLS);
const cellReach = new Float64Array(MAX_CELLS);
const scratchDecay: Float64Array[] = [];
const scratchScore = new Float64Array(LOOKBACK);
const cellThreshold = new Float64Array(MAX_CELLS);

/** Cells whose weight is below e^-20 of the best one change no probability that matters (< 1e-5 in all). */
const NEGLIGIBLE = -20;

/**
 * P(true quality at the current attempt ≥ bar | the scored attempts in `recent`), under the model above.
 */
export function posteriorReach(recent: readonly AttemptSummary[], bar: number, sigmas: readonly number[], logSigmas: readonly number[] = sigmas.map(Math.log)): number {
  let n = 0;
  // The last LOOKBACK attempts, even when a policy keeps more history.
  for (let index = Math.max(0, recent.length - LOOKBACK); index < recent.length; index += 1) {
    const summary = recent[index] as AttemptSummary;
    if (summary.score === undefined) continue;
    scratchDecay[n] = decay(summary.attempt);
    scratchScore[n] = summary.score;
    n += 1;
  }
  const decayNow = decay((recent[recent.length - 1] as AttemptSummary).attempt);
  let untruncatedBest = -Infinity;
  let best = -Infinity;
  let cell = 0;
  for (let j = 0; j < RATES.length; j += 1) {
    // Sufficient statistics of the linear model z = s0·e + ε, with z = y − 1 + e.
    let a = 0;
    let b = 0;
    let c = 0;
    for (let i = 0; i < n; i += 1) {
      const e = (scratchDecay[i] as Float64Array)[j] as number;
      const z = (scratchScore[i] as number) - 1 + e;
      a += e * e;
      b += e * z;
      c += z * z;
    }
    const mean = b / a;
    const rootA = Math.sqrt(a);
    const halfLogA = 0.5 * Math.log(a);
    const residual = c - b * mean;
    const eNow = decayNow[j] as number;
    const threshold = eNow > 0 ? (bar - 1 + eNow) / eNow : -Infinity;
    for (let k = 0; k < sigmas.length; k += 1) {
      const sigma = sigmas[k] as number;
      const logSigma = logSigmas[k] as number;
      const tau = sigma / rootA;
      // The weight before truncating s0 to [0, 1]; truncation can only lower it. (log τ = log σ − ½ log a.)
      cellLogWeight[cell] = -n * logSigma - residual / (2 * sigma * sigma) + logSigma - halfLogA;
      cellMean[cell] = mean;
      cellTau[cell] = tau;
      cellThreshold[cell] = threshold;
      if ((cellLogWeight[cell] as number) > untruncatedBest) untruncatedBest = cellLogWeight[cell] as number;
      cell += 1;
    }
  }
  for (let k = 0; k < cell; k += 1) {
    // A cell far below the best before truncation stays negligible after it.
    if ((cellLogWeight[k] as number) - untruncatedBest < 2 * NEGLIGIBLE) {
      cellLogWeight[k] = -Infinity;
      continue;
    }
    const mean = cellMean[k] as number;
    const tau = cellTau[k] as number;
    const threshold = cellThreshold[k] as number;
    // The truncated normal posterior of s0 on [0, 1]: its mass, and P(s0 ≥ threshold) within it.
    const high = cdf((1 - mean) / tau);
    const mass = high - cdf(-mean / tau);
    let logMass: number;
    if (mass > 1e-12) {
      logMass = mass === 1 ? 0 : Math.log(mass);
      cellReach[k] = threshold <= 0 ? 1 : threshold >= 1 ? 0 : Math.max(0, high - cdf((threshold - mean) / tau)) / mass;
    } else {
      logMass = logNormalInterval(-mean / tau, (1 - mean) / tau);
      cellReach[k] = threshold <= 0 ? 1 : threshold >= 1 ? 0 : Math.exp(logNormalInterval((threshold - mean) / tau, (1 - mean) / tau) - logMass);
    }
    cellLogWeight[k] = (cellLogWeight[k] as number) + logMass;
    if ((cellLogWeight[k] as number) > best) best = cellLogWeight[k] as number;
  }
  let total = 0;
  let above = 0;
  for (let k = 0; k < cell; k += 1) {
    const log = (cellLogWeight[k] as number) - best;
    if (log < NEGLIGIBLE) continue;
    const weight = Math.exp(log);
    total += weight;
    above += weight * (cellReach[k] as number);
  }
  return Math.min(1, above / total);
}

/** Posterior probabilities by bar and noise, then by the attempt summary they were computed at. */
const posteriors = new Map<string, WeakMap<AttemptSummary, number>>();

export interface NoiseAwareOptions {
  readonly bar: number;
  /** Stop once P(true quality ≥ bar) reaches this. */
  readonly confidence: number;
  /** The judge's noise σ, or `'estimate'` to infer it from the scores (integrated over its prior). */
  readonly noise: number | 'estimate';
}

/**
 * Stops `complete` (reason `noise_aware`) when the posterior probability that the TRUE current quality
 * is at least `bar` — given every observed score of the run (the last 64) and the judge's noise —
 * reaches `confidence`. Unlike `threshold`, one lucky score does not convince it when the judge is noisy.
 *
 * @example
 * noiseAware({ bar: 0.8, confidence: 0.9, noise: 0.1 })
 */
export function noiseAware({ bar, confidence, noise }: NoiseAwareOptions): Guard {
  expectNumber('bar', bar, 0, 1);
  expectNumber('confidence', confidence, 0, 1);
  if (noise !== 'estimate') expectNumber('noise', noise, 1e-6, 1);
  // The curve is a model, not the truth: its misfit adds to the judge's noise (independent errors add in quadrature).
  const sigmas = (noise === 'estimate' ? ESTIMATED_SIGMAS : [noise]).map((sigma) => Math.hypot(sigma, MODEL_ERROR));
  const logSigmas = sigmas.map(Math.log);
  const key = `${bar}|${noise}`;
  let known = posteriors.get(key);
  if (known === undefined) {
    known = new WeakMap();
    posteriors.set(key, known);
  }
  const name = `noiseAware(${bar}, ${confidence}, ${noise === 'estimate' ? 'σ estimated' : `σ ${noise}`})`;
  return {
    name,
    lookback: LOOKBACK,
    evaluate({ recent }) {
      const last = recent.at(-1);
      if (last?.score === undefined) return undefined;
      // Summaries are immutable, so the probability for one (last attempt, bar, noise) is computed once and
      // shared by every guard that asks — for example rules that differ only in confidence.
      let probability = known.get(last);
      if (probability === undefined) {
        probability = posteriorReach(recent, bar, sigmas, logSigmas);
        known.set(last, probability);
      }
      if (probability < confidence) return undefined;
      return { guard: name, reason: 'noise_aware', outcome: 'complete', detail: `P(true quality ≥ ${bar}) = ${probability.toFixed(3)} ≥ ${confidence}` };
    },
  };
}
