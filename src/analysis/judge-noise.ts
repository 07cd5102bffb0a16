import type { ScoreSpread } from '../ledger/ledger.js';

/** The judge's noise estimated from repeated scores of identical candidates. */
export interface NoiseEstimate {
  /** Pooled within-candidate standard deviation; absent when no candidate was scored twice. */
  readonly sigma?: number;
  /** Candidates (by content hash) scored more than once. */
  readonly candidates: number;
  /** Scores of those candidates. */
  readonly scores: number;
  /** Degrees of freedom of the estimate: Σ (scores of a candidate − 1). */
  readonly degreesOfFreedom: number;
  /**
   * σ in the form a mission's `noiseAware` guard takes (`noise`): rounded to 4 decimals, within
   * [0.000001, 1]; absent with `sigma`.
   */
  readonly noise?: number;
}

/**
 * The noise estimate of pooled repeated scores: σ̂ = √(m2 / (scores − candidates)), where m2 sums each
 * repeated candidate's squared deviations from its mean.
 */
export function noiseEstimate({ candidates, scores, m2 }: ScoreSpread): NoiseEstimate {
  const degreesOfFreedom = scores - candidates;
  if (degreesOfFreedom === 0) return { candidates, scores, degreesOfFreedom };
  const sigma = Math.sqrt(Math.max(0, m2) / degreesOfFreedom);
  return { sigma, candidates, scores, degreesOfFreedom, noise: Math.min(1, Math.max(0.000001, Math.round(sigma * 10_000) / 10_000)) };
}

/** Welford running statistics of one candidate's scores. */
interface Running {
  n: number;
  mean: number;
  m2: number;
}

/**
 * Pools the scores that identical candidates (same content hash) got, across attempts and runs: a judge
 * without noise gives one candidate one score, so the spread of its scores is the noise. The estimate is
 * σ̂ = √(Σ_c Σ_i (s_ci − s̄_c)² / Σ_c (n_c − 1)) over candidates scored at least twice. Memory holds three
 * numbers per distinct candidate, nothing per score.
 */
export class JudgeNoise {
  readonly #byCandidate = new Map<string, Running>();

  /** Adds one observed score of the candidate with this content hash. */
  add(candidateHash: string, score: number): void {
    const running = this.#byCandidate.get(candidateHash) ?? { n: 0, mean: 0, m2: 0 };
    running.n += 1;
    const delta = score - running.mean;
    running.mean += delta / running.n;
    running.m2 += delta * (score - running.mean);
    this.#byCandidate.set(candidateHash, running);
  }

  estimate(): NoiseEstimate {
    let candidates = 0;
    let scores = 0;
    let m2 = 0;
    for (const running of this.#byCandidate.values()) {
      if (running.n < 2) continue;
      candidates += 1;
      scores += running.n;
      m2 += running.m2;
    }
    return noiseEstimate({ candidates, scores, m2 });
  }
}
