const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The longest duration a mission may set (365 days, 8760h): far beyond any real run, and small enough
 * that a mistyped one (`"99999999999999h"`) is an error instead of a budget that never ends.
 */
export const MAX_DURATION_MS = 365 * 24 * 3_600_000;

/**
 * Parses a duration: a number of milliseconds, or a string such as `"500ms"`, `"30s"`, `"5m"`, `"1h"`.
 * Returns `undefined` for anything else (zero, negative, not finite) so the caller can name what was wrong.
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(value);
  if (match === null) return undefined;
  const amount = Number(match[1]) * (UNITS[match[2] as string] as number);
  return Number.isFinite(amount) && amount > 0 ? amount : undefined;
}

/** A found value as a mission file spells it: strings quoted, `Infinity` and `NaN` by name. */
function spelled(value: unknown): string {
  return typeof value === 'number' || value === undefined ? String(value) : JSON.stringify(value);
}

/**
 * What is wrong with a mission duration, or undefined when it is a positive duration of at most
 * {@link MAX_DURATION_MS}.
 */
export function durationProblem(value: unknown): string | undefined {
  const ms = parseDuration(value);
  if (ms === undefined) return `Expected a positive duration such as 30000, "30s" or "5m", got ${spelled(value)}`;
  if (ms > MAX_DURATION_MS) return `Expected a duration of at most 365 days ("8760h", ${MAX_DURATION_MS} ms), got ${spelled(value)}`;
  return undefined;
}
