/**
 * A run admitted with `--force` over what admission refuses of its review (docs/review.md, 'Admission and
 * review'): a failed shadow check, or a `sampled` run no reviewer approved. The queue's journal keeps it as
 * an `admission` entry, so the override is on the same hash chain as the verdicts it went past.
 */
export interface ForcedAdmission {
  readonly runId: string;
  /** Who admitted it (`redline admit`: the operating-system user). */
  readonly by: string;
  /** What admission refused and `force` overrode: a stable code (`admit.shadow_failed`, `admit.not_approved`) and the reason. */
  readonly overrides: readonly { readonly code: string; readonly reason: string }[];
  /** `files`, `patch` or `git-branch`. */
  readonly mode: string;
  /** Where the candidate went: the directory, the patch file or the branch. */
  readonly into: string;
}

const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** Checks a forced admission before it is journaled. */
export function assertForcedAdmission(input: unknown): asserts input is ForcedAdmission {
  const given = input as Partial<ForcedAdmission> | undefined;
  const overrides = given?.overrides;
  if (
    !text(given?.runId) ||
    !text(given.by) ||
    !text(given.mode) ||
    !text(given.into) ||
    !Array.isArray(overrides) ||
    overrides.length === 0 ||
    !overrides.every((item: unknown) => text((item as { code?: unknown })?.code) && text((item as { reason?: unknown })?.reason))
  )
    throw new TypeError(
      `Expected a forced admission { runId, by, overrides: [{ code, reason }, …], mode, into }, got ${JSON.stringify(input)}`,
    );
}
