/** Thrown by {@link raceSignal} when the signal fires first; carries the signal's reason. */
export class Aborted extends Error {
  constructor(readonly reason: unknown) {
    super('aborted');
    this.name = 'Aborted';
  }
}

/**
 * Who waits on a signal: one `abort` listener per signal wakes them all, so a race per proposer, check
 * and judge call costs a set insertion instead of adding and removing an event listener.
 */
const waiters = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

function waitersOf(signal: AbortSignal): Set<(reason: unknown) => void> {
  let set = waiters.get(signal);
  if (set === undefined) {
    const created = new Set<(reason: unknown) => void>();
    signal.addEventListener(
      'abort',
      () => {
        for (const wake of created) wake(signal.reason);
        created.clear();
      },
      { once: true },
    );
    waiters.set(signal, created);
    set = created;
  }
  return set;
}

/**
 * Settles with `promise`, or rejects with {@link Aborted} as soon as `signal` fires — so a proposer,
 * check or judge that never returns cannot hold the run past its wall-clock budget.
 */
export function raceSignal<T>(promise: Promise<T> | T, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Aborted(signal.reason));
  if (!(promise instanceof Promise)) return Promise.resolve(promise);
  const set = waitersOf(signal);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (reason: unknown): void => reject(new Aborted(reason));
    set.add(onAbort);
    promise.then(
      (value) => {
        set.delete(onAbort);
        resolve(value);
      },
      (error: unknown) => {
        set.delete(onAbort);
        reject(error);
      },
    );
  });
}
