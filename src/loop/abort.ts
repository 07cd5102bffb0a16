/** Thrown by {@link raceSignal} when the signal fires first; carries the signal's reason. */
export class Aborted extends Error {
  constructor(readonly reason: unknown) {
    super('aborted');
    this.name = 'Aborted';
  }
}

/**
 * Settles with `promise`, or rejects with {@link Aborted} as soon as `signal` fires — so a proposer,
 * check or judge that never returns cannot hold the run past its wall-clock budget.
 */
export function raceSignal<T>(promise: Promise<T> | T, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Aborted(signal.reason));
  if (!(promise instanceof Promise)) return Promise.resolve(promise);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Aborted(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
