import { expectInteger } from './expect.js';

/** Running statistics (Welford) of the score gain at one attempt index. */
export interface GainStats {
  readonly n: number;
  readonly mean: number;
  /** Sum of squared deviations from the mean. */
  readonly m2: number;
}

/** Everything the priors learned, per task type: finished runs, and gain statistics by attempt (index 0 = attempt 1). */
export type PriorsSnapshot = Record<string, { readonly runs: number; readonly gains: readonly GainStats[] }>;

/**
 * What the `adaptive` rule knows: per task type, the distribution of the score gain at each attempt
 * (score at attempt t minus score at attempt t − 1), learned from finished runs.
 * Persist it with `toJSON()` / `AdaptivePriors.from()` (the ledger backends store it for the runtime).
 */
export class AdaptivePriors {
  readonly #types = new Map<string, { runs: number; gains: GainStats[] }>();

  /** Priors from a snapshot. */
  static from(snapshot: PriorsSnapshot): AdaptivePriors {
    const priors = new AdaptivePriors();
    for (const [taskType, { runs, gains }] of Object.entries(snapshot))
      priors.#types.set(taskType, { runs, gains: gains.map((gain) => ({ ...gain })) });
    return priors;
  }

  /** Learns from one finished run: its observed scores at attempts 1, 2, … in order. */
  record(taskType: string, scores: readonly number[]): void {
    const entry = this.#types.get(taskType) ?? { runs: 0, gains: [] };
    for (let index = 1; index < scores.length; index += 1) {
      const gain = (scores[index] as number) - (scores[index - 1] as number);
      const stats = entry.gains[index] ?? { n: 0, mean: 0, m2: 0 };
      const n = stats.n + 1;
      const delta = gain - stats.mean;
      const mean = stats.mean + delta / n;
      entry.gains[index] = { n, mean, m2: stats.m2 + delta * (gain - mean) };
    }
    for (let index = 0; index < entry.gains.length; index += 1) entry.gains[index] ??= { n: 0, mean: 0, m2: 0 };
    entry.runs += 1;
    this.#types.set(taskType, entry);
  }

  /** Finished runs learned from, for a task type. */
  runs(taskType: string): number {
    return this.#types.get(taskType)?.runs ?? 0;
  }

  /** Mean and (sample) variance of the gain at `attempt` (1-based), when at least one run reached it. */
  gain(taskType: string, attempt: number): { readonly n: number; readonly mean: number; readonly variance: number } | undefined {
    expectInteger('attempt', attempt, 1);
    const stats = this.#types.get(taskType)?.gains[attempt - 1];
    if (stats === undefined || stats.n === 0) return undefined;
    return { n: stats.n, mean: stats.mean, variance: stats.n > 1 ? stats.m2 / (stats.n - 1) : 0 };
  }

  toJSON(): PriorsSnapshot {
    return Object.fromEntries(
      [...this.#types.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([taskType, entry]) => [taskType, { runs: entry.runs, gains: entry.gains.map((gain) => ({ ...gain })) }]),
    );
  }
}
