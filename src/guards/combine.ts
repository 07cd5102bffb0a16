import { OUTCOMES, type Outcome } from '../core/outcome.js';
import { expectGuards } from './expect.js';
import { evaluatePolicy, type Guard, type StopVerdict } from './guard.js';

const names = (guards: readonly Guard[]): string => guards.map((guard) => guard.name).join(', ');

const maxLookback = (guards: readonly Guard[]): number => Math.max(...guards.map((guard) => guard.lookback));

/**
 * Stops when any of `guards` stops: the first stop wins, in order, and its verdict (naming that guard)
 * is returned unchanged. Reads the largest lookback of its guards.
 *
 * @example
 * anyOf(confirm(2, 0.8), plateau(0.01, 3))
 */
export function anyOf(...guards: Guard[]): Guard {
  expectGuards('anyOf', guards);
  return {
    name: `anyOf(${names(guards)})`,
    lookback: maxLookback(guards),
    evaluate: (input) => evaluatePolicy(guards, input),
  };
}

/**
 * Stops only when every one of `guards` stops. The verdict names `allOf(…)`, takes the reason and
 * outcome of the first guard, and joins every guard's detail. Reads the largest lookback of its guards.
 *
 * @example
 * allOf(threshold(0.8), humanGate(2)) // a passing score, but only after two failed rounds
 */
export function allOf(...guards: Guard[]): Guard {
  expectGuards('allOf', guards);
  const name = `allOf(${names(guards)})`;
  return {
    name,
    lookback: maxLookback(guards),
    evaluate(input) {
      let first: StopVerdict | undefined;
      const details: string[] = [];
      for (const guard of guards) {
        const verdict = guard.evaluate(input);
        if (verdict === undefined) return undefined;
        first ??= verdict;
        details.push(`${verdict.guard}: ${verdict.detail}`);
      }
      return first && { guard: name, reason: first.reason, outcome: first.outcome, detail: details.join('; ') };
    },
  };
}

/** The verdict a {@link not} guard returns when its inner guard does not stop. */
export interface NotVerdict {
  readonly reason: string;
  readonly outcome: Outcome;
  /** @default `"<inner guard> did not stop"` */
  readonly detail?: string | undefined;
}

/**
 * Stops with `verdict` when `guard` does **not** stop. Reads the lookback of `guard`.
 *
 * @example
 * not(smooth(3, 0.5), { reason: 'score_collapsed', outcome: 'failed_with_evidence' })
 */
export function not(guard: Guard, verdict: NotVerdict): Guard {
  expectGuards('not', [guard]);
  if (typeof verdict?.reason !== 'string' || verdict.reason === '') {
    throw new TypeError(`Expected \`reason\` to be a non-empty string, got ${JSON.stringify(verdict?.reason)}`);
  }
  if (!OUTCOMES.includes(verdict.outcome)) {
    throw new TypeError(`Expected \`outcome\` to be one of ${OUTCOMES.join(', ')}, got ${JSON.stringify(verdict.outcome)}`);
  }
  const { reason, outcome, detail } = verdict;
  const name = `not(${guard.name})`;
  return {
    name,
    lookback: guard.lookback,
    evaluate(input) {
      if (guard.evaluate(input) !== undefined) return undefined;
      return { guard: name, reason, outcome, detail: detail ?? `${guard.name} did not stop` };
    },
  };
}
