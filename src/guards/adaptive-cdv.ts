import type { AdaptivePriors } from './adaptive-priors.js';
import { giveUpVerdict, scoreAtBar } from './adaptive.js';
import { expectInteger, expectNumber } from './expect.js';
import type { Guard } from './guard.js';

export interface AdaptiveCdvOptions {
  readonly bar: number;
  readonly priors: AdaptivePriors;
  /** Stop when the chance of closing the gap falls below this. @default 0.3 */
  readonly level?: number;
  /** Learned gains an attempt index needs before the rule trusts it; with fewer it is unknown. @default 3 */
  readonly minObservations?: number;
}

/**
 * CDV's adaptive stop rule, as published: the variant `redline study stop-rules` measures as
 * `adaptive-cdv` beside redline's own {@link adaptive}. Stops `complete` (reason `adaptive`) when the last
 * score reaches `bar`. Otherwise, at attempt t, it reads the priors per attempt index: when the next
 * attempt (t + 1) has fewer than `minObservations` learned gains it falls back to `threshold` (no
 * verdict); else it sums the learned gains of the attempts left whose index has at least
 * `minObservations` (means and variances, taken as independent; an index with fewer adds nothing) and
 * stops `failed_with_evidence` (reason `adaptive_giveup`) when the probability that they close the gap to
 * the bar falls below `level`.
 *
 * Where it differs from `adaptive`: that rule waits for `minRuns` finished runs of the task type and
 * carries the latest learned gain forward to attempts no run reached; this one counts observations per
 * attempt index and treats an unreached index as gaining nothing, so priors learned from runs that
 * stopped early teach it to give up early. The published stack puts `plateau` after it.
 *
 * @example
 * [attemptsBudget(), adaptiveCdv({ bar: 0.8, priors }), plateau(0.01, 3)] // the published stack (the seed's CONVERGENCE_DELTA)
 */
export function adaptiveCdv({ bar, priors, level = 0.3, minObservations = 3 }: AdaptiveCdvOptions): Guard {
  expectNumber('bar', bar, 0, 1);
  expectNumber('level', level, 0, 1);
  expectInteger('minObservations', minObservations, 1);
  const name = `adaptiveCdv(${bar})`;
  const known = (taskType: string, attempt: number) => {
    const gain = priors.gain(taskType, attempt);
    return gain !== undefined && gain.n >= minObservations ? gain : undefined;
  };
  return {
    name,
    lookback: 1,
    evaluate({ recent, counters, budgets, taskType }) {
      const score = recent.at(-1)?.score;
      if (score === undefined) return undefined;
      const reached = scoreAtBar(name, bar, score);
      if (reached !== undefined) return reached;
      const left = budgets.maxAttempts - counters.attempts;
      if (left <= 0 || known(taskType, counters.attempts + 1) === undefined) return undefined;
      let mean = 0;
      let variance = 0;
      for (let attempt = counters.attempts + 1; attempt <= budgets.maxAttempts; attempt += 1) {
        const gain = known(taskType, attempt);
        if (gain === undefined) continue;
        mean += gain.mean;
        variance += gain.variance;
      }
      return giveUpVerdict({
        name,
        gain: { mean, variance },
        gap: bar - score,
        left,
        level,
        learned: `learned per attempt index, ${minObservations}+ ${taskType} gains each`,
      });
    },
  };
}
