/**
 * The longest delay `setTimeout` honours (2^31−1 ms, about 24.8 days). A longer one overflows: Node
 * warns (`TimeoutOverflowWarning`) and fires after 1 ms.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** A pending {@link setLongTimeout}. */
export interface LongTimeout {
  /** Cancels the call; harmless after it fired or was cleared. */
  clear(): void;
}

export interface LongTimeoutOptions {
  /** Milliseconds to wait, of any length: 0 or less fires on the next turn of the event loop, `Infinity` never. */
  readonly delayMs: number;
  readonly onTimeout: () => void;
}

/**
 * `setTimeout` for any delay: one longer than {@link MAX_TIMER_DELAY_MS} is waited out in steps of at
 * most that length, re-armed until the whole delay has passed.
 * @throws {TypeError} when `delayMs` is NaN.
 * @example
 * const timer = setLongTimeout({ delayMs: 597 * 3_600_000, onTimeout: () => controller.abort() });
 * timer.clear();
 */
export function setLongTimeout({ delayMs, onTimeout }: LongTimeoutOptions): LongTimeout {
  if (Number.isNaN(delayMs)) throw new TypeError(`Expected delayMs to be a number of milliseconds, got ${delayMs}`);
  if (delayMs === Infinity) return { clear: () => undefined };
  let handle: NodeJS.Timeout | undefined;
  let remaining = Math.max(0, delayMs);
  const arm = (): void => {
    const step = Math.min(remaining, MAX_TIMER_DELAY_MS);
    remaining -= step;
    handle = setTimeout(remaining > 0 ? arm : onTimeout, step);
  };
  arm();
  return { clear: () => clearTimeout(handle) };
}

/**
 * An abort signal that fires after `delayMs` with a `TimeoutError`, like `AbortSignal.timeout`, but
 * for any delay (`AbortSignal.timeout` overflows beyond {@link MAX_TIMER_DELAY_MS} too). `clear`
 * stops the timer once the work it bounds is done.
 * @throws {TypeError} when `delayMs` is NaN.
 */
export function longTimeoutSignal({ delayMs }: { readonly delayMs: number }): { readonly signal: AbortSignal; readonly clear: () => void } {
  const controller = new AbortController();
  const timer = setLongTimeout({
    delayMs,
    onTimeout: () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
  });
  return { signal: controller.signal, clear: () => timer.clear() };
}
