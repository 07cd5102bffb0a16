import { expectInteger } from './expect.js';
import type { AttemptSummary, Guard, StopVerdict } from './guard.js';

/**
 * The lookback of a guard whose window defaults to the mission's `progressWindow`, which is only known
 * when the guard is evaluated. Pass an explicit window to size the lookback exactly (and whenever the
 * progress window may exceed 16).
 */
export const DEFAULT_WINDOW_LOOKBACK = 16;

/**
 * Infrastructure errors (a check with status `error`) are not stuck-loop evidence. Thrash guards read
 * only the other attempts, so an infrastructure error inside the kept history delays a stop, never causes one.
 */
const evidence = (recent: readonly AttemptSummary[]): AttemptSummary[] => recent.filter((attempt) => !attempt.infraError);

const short = (hash: string): string => hash.slice(0, 8);

const stop = (guard: string, reason: string, detail: string): StopVerdict => ({
  guard,
  reason,
  detail,
  outcome: 'failed_with_evidence',
});

/**
 * Stops (reason `repeated_output`) when, among the last `window` attempts, one candidate fingerprint
 * occurs at least `repeats` times. Reads `window` attempts.
 *
 * @example
 * repeatedOutput(3, 2) // the proposer returned the same candidate twice within three attempts
 */
export function repeatedOutput(window: number, repeats: number): Guard {
  expectInteger('window', window, 1);
  expectInteger('repeats', repeats, 2);
  if (repeats > window) throw new TypeError(`Expected \`repeats\` to be ≤ \`window\` (${window}), got ${repeats}`);
  const name = `repeatedOutput(${window}, ${repeats})`;
  return {
    name,
    lookback: window,
    evaluate({ recent }) {
      const counts = new Map<string, number>();
      for (const { candidateHash } of evidence(recent).slice(-window)) {
        const count = (counts.get(candidateHash) ?? 0) + 1;
        if (count >= repeats) {
          return stop(name, 'repeated_output', `candidate ${short(candidateHash)} proposed ${count} times within ${window} attempts`);
        }
        counts.set(candidateHash, count);
      }
      return undefined;
    },
  };
}

/**
 * Stops (reason `oscillation`) when the current state signature equals the one `j` attempts back, with
 * `2 ≤ j ≤ window`, and some state in between differs: a real cycle (A→B→A, A→B→C→A), not a run that
 * stays on A. The detail names the cycle length `j`.
 *
 * @param window How far back a recurrence counts. @default the mission's `progressWindow`
 * (lookback {@link DEFAULT_WINDOW_LOOKBACK}); an explicit window reads `window + 1` attempts.
 * @example
 * oscillation() // A→B→A stops with "cycle of length 2"
 */
export function oscillation(window?: number): Guard {
  if (window !== undefined) expectInteger('window', window, 2);
  const name = window === undefined ? 'oscillation()' : `oscillation(${window})`;
  return {
    name,
    lookback: window === undefined ? DEFAULT_WINDOW_LOOKBACK : window + 1,
    evaluate({ recent, progressWindow }) {
      const states = evidence(recent).map((attempt) => attempt.signature);
      const current = states.at(-1);
      if (current === undefined) return undefined;
      const last = states.length - 1;
      for (let j = 2; j <= Math.min(window ?? progressWindow, last); j++) {
        if (states[last - j] !== current) continue;
        if (states.slice(last - j + 1, last).every((state) => state === current)) continue;
        return stop(name, 'oscillation', `cycle of length ${j}: state ${short(current)} recurred ${j} attempts later`);
      }
      return undefined;
    },
  };
}

/**
 * Stops (reason `reject_repeat`) when the last four non-empty rejection fingerprints alternate X, Y, X, Y
 * with X ≠ Y: fixing one failure brings back the other. Reads 4 attempts.
 *
 * @example
 * rejectRepeat() // lint fails, then tests, then lint, then tests
 */
export function rejectRepeat(): Guard {
  const name = 'rejectRepeat()';
  return {
    name,
    lookback: 4,
    evaluate({ recent }) {
      const rejections = evidence(recent)
        .map((attempt) => attempt.rejection)
        .filter((rejection) => rejection !== '');
      const [x, y, x2, y2] = rejections.slice(-4);
      if (x === undefined || y === undefined || x === y || x2 !== x || y2 !== y) return undefined;
      return stop(name, 'reject_repeat', `rejections alternate ${short(x)}, ${short(y)}, ${short(x)}, ${short(y)}`);
    },
  };
}

/**
 * Stops (reason `no_progress`) when the last `window` attempts (infrastructure errors aside) made no
 * progress. Needs `window` such attempts.
 *
 * @param window @default the mission's `progressWindow` (lookback {@link DEFAULT_WINDOW_LOOKBACK});
 * an explicit window reads `window` attempts.
 * @example
 * noProgress(3) // three attempts in a row without progress
 */
export function noProgress(window?: number): Guard {
  if (window !== undefined) expectInteger('window', window, 1);
  const name = window === undefined ? 'noProgress()' : `noProgress(${window})`;
  return {
    name,
    lookback: window ?? DEFAULT_WINDOW_LOOKBACK,
    evaluate({ recent, progressWindow }) {
      const size = window ?? progressWindow;
      // `slice(-0)` would return everything.
      if (size < 1) return undefined;
      const attempts = evidence(recent).slice(-size);
      if (attempts.length < size || attempts.some((attempt) => attempt.progress)) return undefined;
      return stop(name, 'no_progress', `no progress in the last ${size} attempts`);
    },
  };
}

/**
 * Stops with `blocked` (reason `human_gate`) once `counters.failedRounds ≥ n`: after `n` failed critic
 * rounds a human decides. Reads only the run counters.
 *
 * @example
 * humanGate(3)
 */
export function humanGate(n: number): Guard {
  expectInteger('n', n, 1);
  const name = `humanGate(${n})`;
  return {
    name,
    lookback: 0,
    evaluate({ counters }) {
      if (counters.failedRounds < n) return undefined;
      const detail = `${counters.failedRounds} failed critic rounds (gate at ${n})`;
      return { guard: name, reason: 'human_gate', outcome: 'blocked', detail };
    },
  };
}
