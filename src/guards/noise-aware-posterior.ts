import type { AttemptSummary } from './guard.js';
import { logNormalCdf, normalCdf } from './normal.js';

/**
 * The model behind {@link noiseAware} (docs/stop-rules.md). True quality rises and saturates,
 * `q(t) = 1 − (1 − s0)·e^(−r·(t − 1))`, and the judge reports `q(t) + ε`, `ε ~ N(0, σ²)`, clipped to [0, 1]
 * (a clipped score is used as reported). Prior: `s0 ~ Uniform(0, 1)`, `r ~ LogUniform(0.02, 5)`, and when σ
 * is estimated, `σ ~ Uniform(0.01, 0.4)` (uniform rather than log-uniform: with a handful of scores a
 * log-uniform prior favours a small σ and makes the rule overconfident). For a fixed `r` the model is linear in `s0`, so `s0` is
 * integrated exactly (a truncated normal); `r` and `σ` are integrated on log-spaced grids.
 */
const NOISE_AWARE_PRIOR = Object.freeze({ s0: [0, 1], r: [0.02, 5], sigma: [0.01, 0.4], grid: { r: 32, sigma: 8 } });

/** Scored attempts the rule reads: the last this many. */
export const LOOKBACK = 64;

function logGrid([low, high]: readonly number[], points: number): number[] {
  const a = Math.log(low as number);
  const b = Math.log(high as number);
  return Array.from({ length: points }, (_, k) => Math.exp(a + ((k + 0.5) / points) * (b - a)));
}

const RATES = logGrid(NOISE_AWARE_PRIOR.r, NOISE_AWARE_PRIOR.grid.r);
export const ESTIMATED_SIGMAS = ((): number[] => {
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

/** Cells whose weight is below e^-20 of the best one change no probability that matters (< 1e-5 in all). */
const NEGLIGIBLE = -20;

/**
 * What a posterior needs of WHICH attempts were scored, not of their scores: per rate, `a = Σ e²` and
 * `½ log a`; per rate and σ, `τ = σ / √a`, the sd of s0's posterior. Cells are rate-major: cell `j·S + k`
 * is rate j, σ k of S.
 */
interface Design {
  readonly a: Float64Array;
  readonly halfLogA: Float64Array;
  readonly tau: Float64Array;
}

const newDesign = (sigmas: number): Design => ({
  a: new Float64Array(RATES.length),
  halfLogA: new Float64Array(RATES.length),
  tau: new Float64Array(RATES.length * sigmas),
});

// Scratch space of one posterior evaluation (evaluations never interleave: they are synchronous).
const MAX_CELLS = NOISE_AWARE_PRIOR.grid.r * NOISE_AWARE_PRIOR.grid.sigma;
const scratchDecay: Float64Array[] = [];
/** Score − 1 per scored attempt (z = score − 1 + e). */
const scratchScore = new Float64Array(LOOKBACK);
const scratchThreshold = new Float64Array(RATES.length);
/** Per σ, the part of a cell's log weight that depends on σ and the number of scores only. */
const scratchSigmaTerm = new Float64Array(NOISE_AWARE_PRIOR.grid.sigma);
const rateMean = new Float64Array(RATES.length);
/** Per rate: 1 where the curve sits at 1 over every scored attempt (see {@link FLAT}). */
const rateFlat = new Uint8Array(RATES.length);

/**
 * Below this `Σ e²` the curve is at 1 (to double precision) over every scored attempt — late attempts
 * of a fast rate, once attempt 1 has left the lookback — so the scores say nothing of s0: its posterior
 * is its uniform prior. (The Gaussian in s0 is then flat over [0, 1] to ~1e-5, while its own formula
 * would divide by a vanishing Σ e².)
 */
const FLAT = 1e-16;
const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);

/** The upper-tail z of the goodness-of-fit check: a misfit this unlikely under the model (p < 1e-6) rejects it. */
const MISFIT_Z = 4.753;

/** χ² with `df` degrees of freedom exceeds this with probability 1e-6 (Wilson–Hilferty). */
function chiSquareBound(df: number): number {
  const v = 2 / (9 * df);
  return df * (1 - v + MISFIT_Z * Math.sqrt(v)) ** 3;
}
/** Per cell: its log weight before truncation; after it, where the mass is too small to represent. */
const cellLogWeight = new Float64Array(MAX_CELLS);
/** Per cell: e^(log weight − best before truncation) · mass, and that times P(q ≥ bar) within the cell. */
const cellWeight = new Float64Array(MAX_CELLS);
const cellAbove = new Float64Array(MAX_CELLS);
/** Per cell whose mass is too small to represent: P(q ≥ bar) within it. */
const cellReach = new Float64Array(MAX_CELLS);

/**
 * Weighs the first `cells` cells from their log weights (−∞ for negligible ones), relative to the best
 * (weight 1): for when no cell's mass was representable.
 */
function rescale(cells: number): void {
  let best = -Infinity;
  for (let k = 0; k < cells; k += 1) if ((cellLogWeight[k] as number) > best) best = cellLogWeight[k] as number;
  for (let k = 0; k < cells; k += 1) {
    const weight = Math.exp((cellLogWeight[k] as number) - best);
    cellWeight[k] = weight;
    cellAbove[k] = weight * (cellReach[k] as number);
  }
}

/** Attempts up to this have their thresholds kept by {@link Posterior}; later ones are computed per evaluation. */
const KEPT_ATTEMPTS = LOOKBACK;

/** Guards that ask about the same attempt (rules differing only in confidence) ask in a row: a few answers suffice. */
const MEMO_SIZE = 8;

/**
 * The posterior of one bar and σ grid. What depends only on which attempts were scored — for the usual
 * run, attempts 1 … n — is computed once per n and kept; a run asked about attempt by attempt extends the
 * sums of its previous evaluation. Either way the numbers are those of a computation from scratch.
 */
export class Posterior {
  readonly #bar: number;
  readonly #sigmas: Float64Array;
  readonly #logSigmas: Float64Array;
  /** 1 / 2σ² per σ. */
  readonly #inverseTwoSigmaSquared: Float64Array;
  /** By n: the design of attempts 1 … n, all scored. */
  readonly #designs: (Design | undefined)[] = [];
  readonly #scratchDesign: Design;
  /** By current attempt t: per rate, the s0 above which q(t) ≥ bar. */
  readonly #thresholds: (Float64Array | undefined)[] = [];
  /** Per rate, Σ e·z and Σ z² of the last evaluation over attempts 1 … n, and the summary it ended at. */
  readonly #sumEZ = new Float64Array(RATES.length);
  readonly #sumZZ = new Float64Array(RATES.length);
  #sumsAt: AttemptSummary | undefined;
  readonly #memoKeys = new Array<AttemptSummary | undefined>(MEMO_SIZE).fill(undefined);
  readonly #memoValues = new Float64Array(MEMO_SIZE);
  #memoNext = 0;

  constructor(bar: number, sigmas: readonly number[], logSigmas: readonly number[]) {
    this.#bar = bar;
    this.#sigmas = Float64Array.from(sigmas);
    this.#logSigmas = Float64Array.from(logSigmas);
    this.#inverseTwoSigmaSquared = Float64Array.from(sigmas, (sigma) => 1 / (2 * sigma * sigma));
    this.#scratchDesign = newDesign(sigmas.length);
  }

  /**
   * {@link reach}, remembered by the attempt summary it was computed at: a summary is immutable and ends the
   * history it was computed over, so every guard that asks about it gets the same answer.
   */
  probability(recent: readonly AttemptSummary[]): number {
    const last = recent[recent.length - 1];
    for (let back = 1; back <= MEMO_SIZE; back += 1) {
      const slot = (this.#memoNext - back + MEMO_SIZE) % MEMO_SIZE;
      if (this.#memoKeys[slot] === last) return this.#memoValues[slot] as number;
    }
    const probability = this.reach(recent);
    this.#memoKeys[this.#memoNext] = last;
    this.#memoValues[this.#memoNext] = probability;
    this.#memoNext = (this.#memoNext + 1) % MEMO_SIZE;
    return probability;
  }

  /** P(true quality at the current attempt ≥ bar | the scored attempts in `recent`); NaN when no curve fits. */
  reach(recent: readonly AttemptSummary[]): number {
    let n = 0;
    let fromFirst = true;
    let onlyFirst = true;
    // The last LOOKBACK attempts, even when a policy keeps more history.
    for (let index = Math.max(0, recent.length - LOOKBACK); index < recent.length; index += 1) {
      const summary = recent[index] as AttemptSummary;
      if (summary.score === undefined) continue;
      scratchDecay[n] = decay(summary.attempt);
      scratchScore[n] = summary.score - 1;
      if (summary.attempt !== n + 1) fromFirst = false;
      if (summary.attempt !== 1) onlyFirst = false;
      n += 1;
    }
    const sigmas = this.#sigmas.length;
    const design = fromFirst ? (this.#designs[n] ??= this.#design(n, newDesign(sigmas))) : this.#design(n, this.#scratchDesign);
    const now = (recent[recent.length - 1] as AttemptSummary).attempt;
    const thresholds = this.#threshold(now);
    // At attempt 1 every rate puts the curve at s0 (e = 1): the rate is not identified, and every rate's
    // cells are the first rate's.
    const rates = onlyFirst && now === 1 ? 1 : RATES.length;
    // The last evaluation was of this run one attempt earlier (as when a run is evaluated attempt by
    // attempt): its sums need only this attempt's terms.
    const extend = fromFirst && n > 1 && this.#sumsAt !== undefined && this.#sumsAt === recent[recent.length - 2];
    const keep = fromFirst && rates === RATES.length;
    this.#sumsAt = keep ? recent[recent.length - 1] : undefined;
    // log weight = −n·log σ − residual / 2σ² + log τ, with log τ = log σ − ½ log a.
    for (let k = 0; k < sigmas; k += 1) scratchSigmaTerm[k] = (1 - n) * (this.#logSigmas[k] as number);
    let untruncatedBest = -Infinity;
    // The best fit's residual over σ² (a χ² statistic), for the goodness-of-fit check below.
    let bestFit = Infinity;
    let cell = 0;
    for (let j = 0; j < rates; j += 1) {
      // Sufficient statistics of the linear model z = s0·e + ε, with z = y − 1 + e (Σ e² is in the design),
      // summed in attempt order either way.
      let b = extend ? (this.#sumEZ[j] as number) : 0;
      let c = extend ? (this.#sumZZ[j] as number) : 0;
      for (let i = extend ? n - 1 : 0; i < n; i += 1) {
        const e = (scratchDecay[i] as Float64Array)[j] as number;
        const z = (scratchScore[i] as number) + e;
        b += e * z;
        c += z * z;
      }
      if (keep) {
        this.#sumEZ[j] = b;
        this.#sumZZ[j] = c;
      }
      const flat = (design.a[j] as number) < FLAT;
      const mean = flat ? 0 : b / (design.a[j] as number);
      const residual = flat ? c : c - b * mean;
      const halfLogA = design.halfLogA[j] as number;
      rateMean[j] = mean;
      rateFlat[j] = flat ? 1 : 0;
      // The best fit with s0 in its prior's range [0, 1]: c − 2b·s0 + a·s0².
      const s0 = flat ? 0 : Math.min(1, Math.max(0, mean));
      const fitResidual = flat ? c : c - 2 * b * s0 + (design.a[j] as number) * s0 * s0;
      for (let k = 0; k < sigmas; k += 1, cell += 1) {
        // The weight before truncating s0 to [0, 1]; truncation can only lower it. A flat rate's
        // likelihood does not depend on s0: −n·log σ − Σz² / 2σ² − ½ log 2π in the same units.
        const logWeight =
          (scratchSigmaTerm[k] as number) -
          residual * (this.#inverseTwoSigmaSquared[k] as number) -
          (flat ? (this.#logSigmas[k] as number) + HALF_LOG_TWO_PI : halfLogA);
        cellLogWeight[cell] = logWeight;
        if (logWeight > untruncatedBest) untruncatedBest = logWeight;
        const fit = 2 * fitResidual * (this.#inverseTwoSigmaSquared[k] as number);
        if (fit < bestFit) bestFit = fit;
      }
    }
    // No curve of the prior explains the scores (a plateau below the bar, scores that fall): the model
    // cannot vouch for anything, whatever its posterior would say.
    if (n > 2 && bestFit > chiSquareBound(n - 2)) return Number.NaN;
    // Weights relative to the best cell before truncation, e^(log weight − that best) · mass: no logarithm
    // of the mass is needed where the mass is representable.
    let best = 0;
    let representable = false;
    cell = 0;
    for (let j = 0; j < rates; j += 1) {
      const mean = rateMean[j] as number;
      const threshold = thresholds[j] as number;
      for (let k = 0; k < sigmas; k += 1, cell += 1) {
        const relative = (cellLogWeight[cell] as number) - untruncatedBest;
        // A cell far below the best before truncation stays negligible after it.
        if (relative < 2 * NEGLIGIBLE) {
          cellLogWeight[cell] = -Infinity;
          cellWeight[cell] = 0;
          continue;
        }
        if (rateFlat[j] === 1) {
          // s0 keeps its uniform prior: mass 1, and P(s0 ≥ threshold) = 1 − threshold.
          const weight = Math.exp(relative);
          cellWeight[cell] = weight;
          cellAbove[cell] = threshold <= 0 ? weight : threshold >= 1 ? 0 : weight * (1 - threshold);
          representable = true;
          if (weight > best) best = weight;
          continue;
        }
        const tau = design.tau[j * sigmas + k] as number;
        // The truncated normal posterior of s0 on [0, 1]: its mass, and P(s0 ≥ threshold) within it.
        const high = cdf((1 - mean) / tau);
        const mass = high - cdf(-mean / tau);
        let weight: number;
        if (mass > 1e-12) {
          const scale = Math.exp(relative);
          weight = scale * mass;
          cellAbove[cell] = threshold <= 0 ? weight : threshold >= 1 ? 0 : scale * Math.max(0, high - cdf((threshold - mean) / tau));
          representable = true;
        } else {
          const logMass = logNormalInterval(-mean / tau, (1 - mean) / tau);
          const reach =
            threshold <= 0 ? 1 : threshold >= 1 ? 0 : Math.exp(logNormalInterval((threshold - mean) / tau, (1 - mean) / tau) - logMass);
          cellLogWeight[cell] = relative + logMass;
          cellReach[cell] = reach;
          weight = Math.exp(relative + logMass);
          cellAbove[cell] = weight * reach;
        }
        cellWeight[cell] = weight;
        if (weight > best) best = weight;
      }
    }
    // Deep in a tail for every rate: weigh in log space, from the best cell (whose weight is then 1).
    if (!representable) rescale(cell);
    const floor = (representable ? best : 1) * Math.exp(NEGLIGIBLE);
    let total = 0;
    let above = 0;
    for (let k = 0; k < cell; k += 1) {
      const weight = cellWeight[k] as number;
      if (weight < floor) continue;
      total += weight;
      above += cellAbove[k] as number;
    }
    return Math.min(1, above / total);
  }

  /** Fills `design` for the `n` scored attempts whose decay rows are the first `n` of the scratch space. */
  #design(n: number, design: Design): Design {
    const sigmas = this.#sigmas.length;
    for (let j = 0; j < RATES.length; j += 1) {
      let a = 0;
      for (let i = 0; i < n; i += 1) {
        const e = (scratchDecay[i] as Float64Array)[j] as number;
        a += e * e;
      }
      const rootA = Math.sqrt(a);
      design.a[j] = a;
      design.halfLogA[j] = 0.5 * Math.log(a);
      for (let k = 0; k < sigmas; k += 1) design.tau[j * sigmas + k] = (this.#sigmas[k] as number) / rootA;
    }
    return design;
  }

  /** Per rate, the s0 above which q(t) ≥ bar at attempt t (−∞ where the curve is already at 1). */
  #threshold(t: number): Float64Array {
    const kept = this.#thresholds[t];
    if (kept !== undefined) return kept;
    const row = t <= KEPT_ATTEMPTS ? new Float64Array(RATES.length) : scratchThreshold;
    const decayNow = decay(t);
    for (let j = 0; j < RATES.length; j += 1) {
      const eNow = decayNow[j] as number;
      row[j] = eNow > 0 ? (this.#bar - 1 + eNow) / eNow : -Infinity;
    }
    if (t <= KEPT_ATTEMPTS) this.#thresholds[t] = row;
    return row;
  }
}

/**
 * P(true quality at the current attempt ≥ bar | the scored attempts in `recent`), under the model above;
 * NaN when the model fails its goodness-of-fit check (the best curve's χ² has p < 1e-6, from 3 scores on),
 * for example scores that plateau below the bar over many attempts.
 */
export function posteriorReach(
  recent: readonly AttemptSummary[],
  bar: number,
  sigmas: readonly number[],
  logSigmas: readonly number[] = sigmas.map(Math.log),
): number {
  return new Posterior(bar, sigmas, logSigmas).reach(recent);
}
