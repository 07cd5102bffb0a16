const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration: a number of milliseconds, or a string such as `"500ms"`, `"30s"`, `"5m"`, `"1h"`.
 * Returns `undefined` for anything else so the schema can name what was wrong.
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(value);
  if (match === null) return undefined;
  const amount = Number(match[1]) * (UNITS[match[2] as string] as number);
  return amount > 0 ? amount : undefined;
}
