import type { RateLimit } from './rate-limit.js';

/** What a limit's bucket holds at time `at` (ms): requests and tokens that may go now; tokens may be owed (< 0). */
export interface BucketLevel {
  readonly requests: number;
  readonly tokens: number;
  readonly at: number;
}

/** The most a bucket holds: `burstSeconds` of refill, and always room for one request. */
export function capacity(limit: RateLimit): { readonly requests: number; readonly tokens: number } {
  const of = (perMinute: number | undefined): number =>
    perMinute === undefined ? Infinity : Math.max(1, (perMinute * limit.burstSeconds) / 60);
  return { requests: of(limit.requestsPerMinute), tokens: of(limit.tokensPerMinute) };
}

/** A full bucket at `now`: a new limit lets its burst go at once. */
export function fullLevel(limit: RateLimit, now: number): BucketLevel {
  const { requests, tokens } = capacity(limit);
  return { requests, tokens, at: now };
}

/** The level at `now`: refilled at the per-minute rates since `at`, up to the capacity. A clock that went back refills nothing. */
export function refill(limit: RateLimit, level: BucketLevel, now: number): BucketLevel {
  const elapsed = Math.max(0, now - level.at);
  const cap = capacity(limit);
  const grow = (held: number, perMinute: number | undefined, most: number): number =>
    perMinute === undefined ? most : Math.min(most, held + (perMinute * elapsed) / 60_000);
  return {
    requests: grow(level.requests, limit.requestsPerMinute, cap.requests),
    tokens: grow(level.tokens, limit.tokensPerMinute, cap.tokens),
    at: Math.max(level.at, now),
  };
}

/** One limit that governs a call, with its bucket as stored. */
export interface Governing {
  readonly limit: RateLimit;
  readonly level: BucketLevel;
}

/** A call's tokens as a bucket counts them: a call larger than the bucket goes when the bucket is full, and owes the rest. */
const tokensFor = (limit: RateLimit, tokens: number): number => Math.min(tokens, capacity(limit).tokens);

/**
 * Takes one request of `tokens` tokens from every governing bucket, or from none: the new levels, or how
 * long to wait until all of them hold enough.
 */
export function takeAll(
  governing: readonly Governing[],
  tokens: number,
  now: number,
): { readonly levels: readonly BucketLevel[] } | { readonly waitMs: number } {
  const refilled = governing.map(({ limit, level }) => refill(limit, level, now));
  let waitMs = 0;
  governing.forEach(({ limit }, index) => {
    const level = refilled[index] as BucketLevel;
    if (limit.requestsPerMinute !== undefined && level.requests < 1)
      waitMs = Math.max(waitMs, ((1 - level.requests) * 60_000) / limit.requestsPerMinute);
    const need = tokensFor(limit, tokens);
    if (limit.tokensPerMinute !== undefined && level.tokens < need)
      waitMs = Math.max(waitMs, ((need - level.tokens) * 60_000) / limit.tokensPerMinute);
  });
  if (waitMs > 0) return { waitMs: Math.ceil(waitMs) };
  return {
    levels: refilled.map((level, index) => {
      const { limit } = governing[index] as Governing;
      return {
        requests: limit.requestsPerMinute === undefined ? level.requests : level.requests - 1,
        tokens: limit.tokensPerMinute === undefined ? level.tokens : level.tokens - tokensFor(limit, tokens),
        at: level.at,
      };
    }),
  };
}

/**
 * A level after a call settles: the tokens it reserved but did not use go back (up to the capacity), the
 * ones it used beyond its reservation are owed.
 */
export function settle(
  limit: RateLimit,
  level: BucketLevel,
  { reserved, used }: { reserved: number; used: number },
  now: number,
): BucketLevel {
  const refilled = refill(limit, level, now);
  if (limit.tokensPerMinute === undefined) return refilled;
  return { ...refilled, tokens: Math.min(capacity(limit).tokens, refilled.tokens + tokensFor(limit, reserved) - used) };
}
