/** One model call as the limits see it. */
export interface RateRequest {
  /** The endpoint key (see `endpointKey`). */
  readonly endpoint: string;
  readonly model: string;
  /** Tokens the call may use: its prompt's estimate plus its output cap; settled with what it used. */
  readonly tokens: number;
}

/** A call the limits let go. */
export interface RateGrant {
  /** How long the call waited for its turn. */
  readonly waitedMs: number;
  /** Gives back the reserved tokens the call did not use, or owes the ones it used beyond them. */
  settle(usedTokens: number): Promise<void>;
}

/** Admits model calls under the per-endpoint limits: one process's (memory) or a whole fleet's (PostgreSQL). */
export interface RateLimiter {
  /**
   * Waits until every limit on the call's endpoint and model (the model's own and the endpoint's `*`)
   * admits it, and takes its share of each. A call no limit names goes at once.
   * @throws the signal's reason when `signal` aborts while waiting.
   */
  acquire(request: RateRequest, options?: { readonly signal?: AbortSignal | undefined }): Promise<RateGrant>;
}

/** What a limiter keeps: the limits and their buckets, taken from and settled atomically. */
export interface LimitStore {
  /** Takes one request of `tokens` from every bucket that governs the call, or from none and says how long to wait. */
  take(request: RateRequest): Promise<{ readonly taken: true } | { readonly waitMs: number }>;
  /** Settles a call `take` admitted. */
  settle(request: RateRequest, usedTokens: number): Promise<void>;
}

/** How long a waiting call sleeps at most before it asks again: tokens given back may let it go sooner. */
const RECHECK_MS = 1000;

const pause = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason as Error);
    const wake = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(wake, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });

/**
 * A {@link RateLimiter} over a store of buckets: a call waits (rechecking at least every second) until the
 * store admits it. `onWait` hears of each call that had to wait, once, with the first wait the store named.
 */
export function limiterOver(
  store: LimitStore,
  { onWait, now = Date.now }: { readonly onWait?: (request: RateRequest, waitMs: number) => void; readonly now?: () => number } = {},
): RateLimiter {
  return {
    async acquire(request, { signal } = {}) {
      const started = now();
      let told = false;
      for (;;) {
        signal?.throwIfAborted();
        const turn = await store.take(request);
        if ('taken' in turn)
          return { waitedMs: now() - started, settle: (usedTokens: number) => store.settle(request, Math.max(0, usedTokens)) };
        if (!told) onWait?.(request, turn.waitMs);
        told = true;
        await pause(Math.min(turn.waitMs, RECHECK_MS), signal);
      }
    },
  };
}
