/**
 * How the queue talks to its storage: an operation is a generator that yields questions to a port and
 * receives their answers, and one of two drivers answers them, at once (memory, SQLite) or later
 * (PostgreSQL). The queue's write transactions (`review-store.ts`) and the verification of a SQL queue's
 * tables (`queue-tables.ts`) are both driven here; docs/review.md says why a SQLite write never yields.
 */

/** A value now (memory, SQLite) or later (PostgreSQL). */
export type Awaitable<T> = T | Promise<T>;

/** One question to the port `P`, yielded by an operation for a driver to answer. */
export type Question<P> = (port: P) => Awaitable<unknown>;

/** An operation in progress over the port `P`: yields questions, receives their answers, returns `T`. */
export type Steps<P, T> = Generator<Question<P>, T, unknown>;

/**
 * The `ask` of a port: `yield* ask((port) => …)` yields the question and hands back its answer, typed.
 * @example
 * const ask = asker<ReviewTx>();
 * function* depth(): Steps<ReviewTx, number> {
 *   return (yield* ask((tx) => tx.state())).depth;
 * }
 */
export function asker<P>(): <T>(read: (port: P) => Awaitable<T>) => Steps<P, T> {
  return function* ask<T>(read: (port: P) => Awaitable<T>): Steps<P, T> {
    return (yield read) as T;
  };
}

/**
 * Runs an operation on a port that answers at once. An answer that is a promise is refused: a
 * synchronous store that yields would let another operation interleave on its connection.
 * @throws {TypeError} when the port answers with a promise.
 */
export function driveSync<P, T>(steps: Steps<P, T>, port: P): T {
  let next = steps.next();
  while (next.done !== true) {
    const answer = next.value(port);
    if (answer instanceof Promise) throw new TypeError('Expected a synchronous review store, got a promise');
    next = steps.next(answer);
  }
  return next.value;
}

/** Runs an operation on a port that answers later, one question at a time. */
export async function driveAsync<P, T>(steps: Steps<P, T>, port: P): Promise<T> {
  let next = steps.next();
  while (next.done !== true) next = steps.next(await next.value(port));
  return next.value;
}
