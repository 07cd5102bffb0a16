import { InvalidArgumentError } from 'commander';

// Commander argument parsers shared by the commands: each names what it expected and what it got.

/** The number `text` spells, or `NaN`. */
const parse = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));

export function number(text: string): number {
  const value = parse(text);
  if (!Number.isFinite(value)) throw new InvalidArgumentError(`Expected a number, got ${JSON.stringify(text)}.`);
  return value;
}

export function integer(text: string): number {
  const value = parse(text);
  if (!Number.isInteger(value)) throw new InvalidArgumentError(`Expected an integer, got ${JSON.stringify(text)}.`);
  return value;
}

export function numbers(text: string): number[] {
  try {
    return text.split(',').map(number);
  } catch {
    throw new InvalidArgumentError(`Expected a comma-separated list of numbers, got ${JSON.stringify(text)}.`);
  }
}

/** A non-negative integer (a count or a limit). */
export function count(text: string): number {
  const value = parse(text);
  if (!Number.isInteger(value) || value < 0)
    throw new InvalidArgumentError(`Expected a non-negative integer, got ${JSON.stringify(text)}.`);
  return value;
}

export function positive(text: string): number {
  const value = count(text);
  if (value < 1) throw new InvalidArgumentError(`Expected a positive integer, got ${JSON.stringify(text)}.`);
  return value;
}

/** A positive number of bytes: plain, or with K, M or G (powers of 1024): `40M`, `1G`, `65536`. */
export function byteCount(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([KMG]i?B?)?\s*$/i.exec(text);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match?.[2] ?? '').charAt(0).toLowerCase()] ?? 1;
  const value = match === null ? Number.NaN : Math.floor(Number(match[1]) * unit);
  if (!(Number.isSafeInteger(value) && value >= 1))
    throw new InvalidArgumentError(`Expected a positive number of bytes (such as 65536, 40M or 1G), got ${JSON.stringify(text)}.`);
  return value;
}

/** A number above 0 (a rate, a duration). */
export function positiveNumber(text: string): number {
  const value = parse(text);
  if (!(Number.isFinite(value) && value > 0)) throw new InvalidArgumentError(`Expected a number above 0, got ${JSON.stringify(text)}.`);
  return value;
}

/** A fraction in [0, 1]. */
export function fraction(text: string): number {
  const value = parse(text);
  if (!(value >= 0 && value <= 1)) throw new InvalidArgumentError(`Expected a fraction between 0 and 1, got ${JSON.stringify(text)}.`);
  return value;
}

/**
 * A `--since` date (anything `Date.parse` reads, such as 2026-11-23 or 2026-11-23T08:00Z) as ms since the epoch.
 * @throws {TypeError} "Expected --since to be a date …" for text that is no date.
 */
export function parseSince(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const at = Date.parse(since);
  if (Number.isNaN(at)) throw new TypeError(`Expected --since to be a date such as 2026-11-23, got ${JSON.stringify(since)}`);
  return at;
}

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** A size in bytes: a number with an optional K, M, G or T suffix (powers of 1024), such as 500M or 4G. */
export function size(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i.exec(text);
  const unit = SIZE_UNITS[(match?.[2] ?? '').toLowerCase()];
  if (match === null || unit === undefined)
    throw new InvalidArgumentError(`Expected a size such as 500M or 4G, got ${JSON.stringify(text)}.`);
  return Math.round(Number(match[1]) * unit);
}

const AGE_UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** An age in ms: a number with a unit m (minutes), h, d or w, such as 30m or 7d. */
export function age(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([mhdw])\s*$/.exec(text);
  const unit = AGE_UNITS[match?.[2] ?? ''];
  if (match === null || unit === undefined)
    throw new InvalidArgumentError(`Expected an age such as 30m, 12h or 7d, got ${JSON.stringify(text)}.`);
  return Number(match[1]) * unit;
}
