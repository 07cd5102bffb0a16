import { finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding, Stage } from '../core/finding.js';

/** A judge's cited problem with the candidate. */
export interface ScoreNote {
  readonly reasonCode: string;
  readonly message: string;
}

/** What a score judge returns: a score in [0, 1], optionally with cited findings. */
export type ScoreResult = number | { readonly score: number; readonly notes?: readonly ScoreNote[] };

export type ScoreFunction = (context: CheckContext) => ScoreResult | Promise<ScoreResult>;

export interface ScoreCheckOptions {
  readonly name: string;
  readonly score: ScoreFunction;
  /** Score at or above which the finding is `pass`. @default 0.8 */
  readonly pass?: number;
  readonly stage?: Stage;
  /** @default false — a semantic score ranks and stops but never verifies. */
  readonly required?: boolean;
}

/** Semantic check: asks a judge (function, program or model) for a score in [0, 1]. */
export function scoreCheck({ name, score, pass = 0.8, stage = 'fast', required = false }: ScoreCheckOptions): Check {
  const check = { name, stage, tier: 'semantic' as const, required };
  return {
    ...check,
    async run(context: CheckContext): Promise<Finding[]> {
      let result: ScoreResult;
      try {
        result = await score(context);
      } catch (error) {
        return [finding(check, 'error', ['judge.failed'], `the score judge failed: ${(error as Error).message}`)];
      }
      const value = typeof result === 'number' ? result : result?.score;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
        return [finding(check, 'error', ['judge.bad_score'], `expected a score in [0, 1], got ${JSON.stringify(value)}`)];
      }
      const notes = typeof result === 'number' ? [] : (result.notes ?? []);
      const passed = value >= pass;
      return [
        finding(
          check,
          passed ? 'pass' : 'fail',
          passed ? [] : ['score.below_pass', ...notes.map((note) => note.reasonCode)],
          `score ${value.toFixed(3)}${notes.length > 0 ? `: ${notes.map((note) => note.message).join('; ')}` : ''}`,
          {
            score: value,
          },
        ),
      ];
    },
  };
}
