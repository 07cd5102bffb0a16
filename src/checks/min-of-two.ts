import type { CheckContext } from '../core/check.js';
import type { ScoreFunction, ScoreResult } from './score-check.js';

const parts = (result: ScoreResult): { score: number; notes: readonly { reasonCode: string; message: string }[] } =>
  typeof result === 'number' ? { score: result, notes: [] } : { score: result.score, notes: result.notes ?? [] };

/**
 * Two-judge composition: asks both judges and keeps the stricter score, `min(A, B)`, with the notes of
 * both. Independent noise in two judges makes a lucky score less likely to clear the bar.
 *
 * @example
 * scoreCheck({ name: 'quality', score: minOfTwo(modelJudgeA, modelJudgeB) })
 */
export function minOfTwo(a: ScoreFunction, b: ScoreFunction): ScoreFunction {
  if (typeof a !== 'function' || typeof b !== 'function')
    throw new TypeError(`Expected two score functions, got ${typeof a} and ${typeof b}`);
  return async (context: CheckContext): Promise<ScoreResult> => {
    const [first, second] = (await Promise.all([a(context), b(context)])).map(parts) as [
      ReturnType<typeof parts>,
      ReturnType<typeof parts>,
    ];
    return { score: Math.min(first.score, second.score), notes: [...first.notes, ...second.notes] };
  };
}
