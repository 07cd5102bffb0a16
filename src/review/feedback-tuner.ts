/**
 * The feedback tuner (docs/review.md, 'The queue'): reviewers' verdicts steer the attempt limit of new runs. Many approvals
 * mean runs handed off too early (raise the limit); many rejections mean extra attempts are wasted on
 * tasks the agent cannot do (lower it). Pure; the adapters persist the limit and every change.
 */

export interface Tuner {
  /** The attempt limit before any change. @default 5 */
  readonly initial: number;
  /** Verdicts the approve rate is computed over; nothing changes before this many exist. @default 10 */
  readonly window: number;
  /** @default 3 */
  readonly min: number;
  /** @default 15 */
  readonly max: number;
  /** An approve rate above this raises the limit by one. @default 0.8 */
  readonly raiseAbove: number;
  /** An approve rate below this lowers the limit by one. @default 0.4 */
  readonly lowerBelow: number;
}

export const TUNER: Tuner = Object.freeze({ initial: 5, window: 10, min: 3, max: 15, raiseAbove: 0.8, lowerBelow: 0.4 });

/** A change of the attempt limit with the evidence it was computed from. */
export interface LimitChange {
  readonly from: number;
  readonly to: number;
  readonly approveRate: number;
  /** The verdicts of the window, oldest first. */
  readonly verdictIds: readonly string[];
  /** Milliseconds since the epoch. */
  readonly at: number;
  /**
   * `settings`: new bounds moved the limit into them (the window is the one that stood then); absent for
   * the tuner's own changes.
   */
  readonly cause?: 'settings';
}

/** Validated, frozen tuner settings; missing ones take the defaults. */
export function tuner(options: Partial<Tuner> = {}): Tuner {
  const t = { ...TUNER, ...options };
  for (const key of ['initial', 'window', 'min', 'max'] as const) {
    if (!Number.isInteger(t[key]) || t[key] < 1) throw new TypeError(`Expected tuner.${key} to be a positive integer, got ${t[key]}`);
  }
  if (t.min > t.max) throw new TypeError(`Expected tuner.min ≤ tuner.max, got ${t.min} > ${t.max}`);
  if (t.initial < t.min || t.initial > t.max) throw new TypeError(`Expected tuner.initial within [${t.min}, ${t.max}], got ${t.initial}`);
  if (!(t.lowerBelow >= 0 && t.lowerBelow <= t.raiseAbove && t.raiseAbove <= 1)) {
    throw new TypeError(`Expected 0 ≤ tuner.lowerBelow ≤ tuner.raiseAbove ≤ 1, got ${t.lowerBelow} and ${t.raiseAbove}`);
  }
  return Object.freeze(t);
}

/**
 * The attempt limit after the last `window` verdicts (`true` = approved): +1 above the raise rate,
 * −1 below the lower rate, else held; bounded to [min, max]. Fewer verdicts than the window hold it.
 */
export function tuneLimit({ limit, verdicts, policy = TUNER }: { limit: number; verdicts: readonly boolean[]; policy?: Tuner }): number {
  if (verdicts.length < policy.window) return limit;
  const rate = approveRate(verdicts.slice(-policy.window));
  const step = rate > policy.raiseAbove ? 1 : rate < policy.lowerBelow ? -1 : 0;
  return Math.min(policy.max, Math.max(policy.min, limit + step));
}

/**
 * The change one more verdict makes: `window` holds the newest verdicts, oldest first (at most
 * `policy.window` of them are used). Nothing when fewer exist or the limit holds.
 */
export function limitChange({
  limit,
  window,
  policy = TUNER,
  at,
}: {
  limit: number;
  window: readonly { id: string; decision: 'approve' | 'reject' }[];
  policy?: Tuner;
  at: number;
}): LimitChange | undefined {
  const recent = window.slice(-policy.window);
  const approvals = recent.map((verdict) => verdict.decision === 'approve');
  const to = tuneLimit({ limit, verdicts: approvals, policy });
  if (to === limit) return undefined;
  return { from: limit, to, approveRate: approveRate(approvals), verdictIds: recent.map((verdict) => verdict.id), at };
}

/** The limit moved into new bounds, if they exclude it: `window` is the newest verdicts, oldest first. */
export function boundLimit({
  limit,
  window,
  policy,
  at,
}: {
  limit: number;
  window: readonly { id: string; decision: 'approve' | 'reject' }[];
  policy: Tuner;
  at: number;
}): LimitChange | undefined {
  const to = Math.min(policy.max, Math.max(policy.min, limit));
  if (to === limit) return undefined;
  const recent = window.slice(-policy.window);
  return {
    from: limit,
    to,
    approveRate: recent.length === 0 ? 0 : approveRate(recent.map((verdict) => verdict.decision === 'approve')),
    verdictIds: recent.map((verdict) => verdict.id),
    at,
    cause: 'settings',
  };
}

function approveRate(approvals: readonly boolean[]): number {
  return approvals.filter(Boolean).length / approvals.length;
}
