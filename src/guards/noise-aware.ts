import { expectNumber } from './expect.js';
import type { Guard } from './guard.js';
import { ESTIMATED_SIGMAS, LOOKBACK, Posterior } from './noise-aware-posterior.js';

// The model and its posterior live in noise-aware-posterior.ts (docs/stop-rules.md describes both).
export { posteriorReach } from './noise-aware-posterior.js';

/** Standard deviation of the model's own misfit (real curves are not exactly exponential), added to σ. */
const MODEL_ERROR = 0.015;

/** The posterior per bar and noise, shared by every guard with both (and with them, its memo). */
const posteriors = new Map<string, Posterior>();

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
  const key = `${bar}|${noise}`;
  let posterior = posteriors.get(key);
  if (posterior === undefined) {
    posterior = new Posterior(bar, sigmas, sigmas.map(Math.log));
    posteriors.set(key, posterior);
  }
  const name = `noiseAware(${bar}, ${confidence}, ${noise === 'estimate' ? 'σ estimated' : `σ ${noise}`})`;
  return {
    name,
    lookback: LOOKBACK,
    evaluate({ recent }) {
      const last = recent.at(-1);
      if (last?.score === undefined) return undefined;
      // Computed once per (last attempt, bar, noise), and shared by every guard that asks — for example
      // rules that differ only in confidence.
      const probability = posterior.probability(recent);
      // NaN (a posterior that failed) never stops a run: only a probability that reaches confidence does.
      if (!(probability >= confidence)) return undefined;
      return {
        guard: name,
        reason: 'noise_aware',
        outcome: 'complete',
        detail: `P(true quality ≥ ${bar}) = ${probability.toFixed(3)} ≥ ${confidence}`,
      };
    },
  };
}
