import { ANY_MODEL, type RateLimit } from './rate-limit.js';
import type { LimitStore, RateRequest } from './rate-limiter.js';
import { fullLevel, settle, takeAll, type BucketLevel } from './token-bucket.js';

const keyOf = (endpoint: string, model: string): string => JSON.stringify([endpoint, model]);

/**
 * The limits of one process (many runs at once in `redline run --concurrency`, or a library user's own
 * loop): buckets in memory. A fleet shares its buckets through PostgreSQL instead (`redline limits`).
 * @example
 * const limiter = limiterOver(new MemoryLimitStore([rateLimit({ endpoint: 'https://api.openai.com/v1', requestsPerMinute: 500 })]));
 */
export class MemoryLimitStore implements LimitStore {
  readonly #limits = new Map<string, RateLimit>();
  readonly #levels = new Map<string, BucketLevel>();
  readonly #now: () => number;

  constructor(limits: readonly RateLimit[] = [], { now = Date.now }: { now?: () => number } = {}) {
    this.#now = now;
    for (const limit of limits) this.setLimit(limit);
  }

  /** Adds or replaces the limit of an endpoint and model; its bucket keeps what it holds. */
  setLimit(limit: RateLimit): void {
    const key = keyOf(limit.endpoint, limit.model);
    this.#limits.set(key, limit);
    if (!this.#levels.has(key)) this.#levels.set(key, fullLevel(limit, this.#now()));
  }

  #governing(request: RateRequest): { key: string; limit: RateLimit; level: BucketLevel }[] {
    return [...new Set([request.model, ANY_MODEL])].flatMap((model) => {
      const key = keyOf(request.endpoint, model);
      const limit = this.#limits.get(key);
      const level = this.#levels.get(key);
      return limit === undefined || level === undefined ? [] : [{ key, limit, level }];
    });
  }

  take(request: RateRequest): Promise<{ taken: true } | { waitMs: number }> {
    const governing = this.#governing(request);
    const turn = takeAll(governing, request.tokens, this.#now());
    if ('waitMs' in turn) return Promise.resolve(turn);
    turn.levels.forEach((level, index) => this.#levels.set((governing[index] as { key: string }).key, level));
    return Promise.resolve({ taken: true });
  }

  settle(request: RateRequest, usedTokens: number): Promise<void> {
    for (const { key, limit, level } of this.#governing(request))
      this.#levels.set(key, settle(limit, level, { reserved: request.tokens, used: usedTokens }, this.#now()));
    return Promise.resolve();
  }
}
