import type { AdaptivePriors } from './adaptive-priors.js';
import { expectInteger, expectNumber } from './expect.js';
import type { Guard, StopVerdict } from './guard.js';
import { normalCdf } from './normal.js';

const EPSILON = 1e-9;
const format = (value: number): string => String(Number(value.toFixed(4)));

/** The verdict of an adaptive rule on its last score: `complete` at the bar, else undefined. */
export function scoreAtBar(name: string, bar: number, score: number): StopVerdict | undefined {
  return score >= bar - EPSILON
    ? { guard: name, reason: 'adaptive', outcome: 'complete', detail: `score ${format(score)} ≥ bar ${bar}` }
    : undefined;
}

/**
 * The give-up verdict of an adaptive rule: when the chance that gains of summed `mean` and `variance`
 * (taken as normal) close the `gap` to the bar falls below `level`; `learned` says where the gains came from.
 */
export function giveUpVerdict({
  name,
  gain: { mean, variance },
  gap,
  left,
  level,
  learned,
}: {
  name: string;
  gain: { mean: number; variance: number };
  gap: number;
  left: number;
  level: number;
  learned: string;
}): StopVerdict | undefined {
  const chance = variance > 0 ? 1 - normalCdf((gap - mean) / Math.sqrt(variance)) : mean >= gap ? 1 : 0;
  if (chance >= level) return undefined;
  return {
    guard: name,
    reason: 'adaptive_giveup',
    outcome: 'failed_with_evidence',
    detail: `P(the ${left} attempt(s) left gain ≥ ${format(gap)}) = ${format(chance)} < ${level} (${learned})`,
  };
}

export interface AdaptiveOptions {
  readonly bar: number;
  readonly priors: AdaptivePriors;
  /** Stop when the chance of closing the gap falls below this. @default 0.3 */
  readonly level?: number;
  /** Finished runs of a task type needed before the priors are used; until then the rule is `threshold`. @default 3 */
  readonly minRuns?: number;
}

/**
 * A learned stop rule. Stops `complete` (reason `adaptive`) when the last score reaches `bar`. Otherwise,
 * once the task type has `minRuns` finished runs, it sums the learned gains of the attempts still left
 * (means and variances, taken as independent; an attempt no finished run reached takes the latest learned
 * gain) and stops `failed_with_evidence` (reason `adaptive_giveup`)
 * when the probability that they close the gap to the bar falls below `level`.
 *
 * @example
 * adaptive({ bar: 0.8, priors }) // threshold(0.8) that also gives up on hopeless runs
 */
export function adaptive({ bar, priors, level = 0.3, minRuns = 3 }: AdaptiveOptions): Guard {
  expectNumber('bar', bar, 0, 1);
  expectNumber('level', level, 0, 1);
  expectInteger('minRuns', minRuns, 0);
  const name = `adaptive(${bar})`;
  return {
    name,
    lookback: 1,
    evaluate({ recent, counters, budgets, taskType }) {
      const score = recent.at(-1)?.score;
      if (score === undefined) return undefined;
      const reached = scoreAtBar(name, bar, score);
      if (reached !== undefined) return reached;
      if (priors.runs(taskType) < minRuns) return undefined;
      let mean = 0;
      let variance = 0;
      // An attempt no finished run reached has no learned gain: carry the latest learned one forward
      // rather than assume it gains nothing (runs that stopped early would otherwise teach "give up").
      let carried: { mean: number; variance: number } | undefined;
      for (let attempt = 2; attempt <= counters.attempts; attempt += 1) carried = priors.gain(taskType, attempt) ?? carried;
      for (let attempt = counters.attempts + 1; attempt <= budgets.maxAttempts; attempt += 1) {
        const gain = priors.gain(taskType, attempt) ?? carried;
        carried = gain;
        if (gain === undefined) continue;
        mean += gain.mean;
        variance += gain.variance;
      }
      const left = budgets.maxAttempts - counters.attempts;
      if (left <= 0) return undefined;
      return giveUpVerdict({
        name,
        gain: { mean, variance },
        gap: bar - score,
        left,
        level,
        learned: `learned from ${priors.runs(taskType)} ${taskType} runs`,
      });
    },
  };
}
