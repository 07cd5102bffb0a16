/**
 * Backpressure of the review queue (docs/review.md, 'The queue') as pure functions: the adapters call them inside the
 * transaction that changes the depth, so every backend drops and switches modes alike.
 */

/** The queue's mode: in `degraded` mode new runs make one attempt and tag their output `draft`. */
export type QueueMode = 'normal' | 'degraded';

/** Queue capacity and watermarks (fractions of capacity). */
export interface Backpressure {
  /** Most items the queue holds; an enqueue at capacity drops one. @default 50 */
  readonly capacity: number;
  /** Depth above `high · capacity` enters degraded mode. @default 0.8 */
  readonly high: number;
  /** Depth below `low · capacity` returns to normal mode. @default 0.3 */
  readonly low: number;
}

export const BACKPRESSURE: Backpressure = Object.freeze({ capacity: 50, high: 0.8, low: 0.3 });

/** What a drop decision needs of an item. */
export interface Ranked {
  readonly priority: number;
  /** Arrival order: lower is older. */
  readonly seq: number;
}

/** A switch of mode, with the depth that caused it. */
export interface ModeChange {
  readonly from: QueueMode;
  readonly to: QueueMode;
  readonly depth: number;
  /** Milliseconds since the epoch. */
  readonly at: number;
}

/** Validated, frozen backpressure settings; missing ones take the defaults. */
export function backpressure(options: Partial<Backpressure> = {}): Backpressure {
  const policy = { ...BACKPRESSURE, ...options };
  if (!Number.isInteger(policy.capacity) || policy.capacity < 1)
    throw new TypeError(`Expected capacity to be a positive integer, got ${policy.capacity}`);
  if (!(policy.high > 0 && policy.high <= 1))
    throw new TypeError(`Expected the high watermark to be a fraction in (0, 1], got ${policy.high}`);
  if (!(policy.low >= 0 && policy.low < policy.high))
    throw new TypeError(`Expected the low watermark to be a fraction in [0, high), got ${policy.low} with high ${policy.high}`);
  return Object.freeze({ capacity: policy.capacity, high: policy.high, low: policy.low });
}

/**
 * A watermark as a depth: `fraction · capacity`, rounded to 9 decimals so that float products such as
 * 0.57 · 100 = 56.99999999999999 do not move it below the whole number it stands for.
 */
export function watermark(fraction: number, capacity: number): number {
  return Math.round(fraction * capacity * 1e9) / 1e9;
}

/** The mode after the depth changed to `depth`; between the watermarks the mode holds (hysteresis). */
export function nextMode({ mode, depth, policy }: { mode: QueueMode; depth: number; policy: Backpressure }): QueueMode {
  if (mode === 'normal' && depth > watermark(policy.high, policy.capacity)) return 'degraded';
  if (mode === 'degraded' && depth < watermark(policy.low, policy.capacity)) return 'normal';
  return mode;
}

/**
 * The item to drop when `incoming` arrives at a full queue: the lowest priority among the droppable
 * queued items and the newcomer, the oldest among equals (the newcomer is the newest).
 */
export function dropVictim<T extends Ranked>({ queued, incoming }: { queued: readonly T[]; incoming: T }): T {
  let victim = incoming;
  for (const item of queued) {
    if (item.priority < victim.priority || (item.priority === victim.priority && item.seq < victim.seq)) victim = item;
  }
  return victim;
}

/** The queue after its depth changed: the new depth and mode, and the switch if the mode changed. */
export interface DepthChange {
  readonly depth: number;
  readonly mode: QueueMode;
  readonly modeChanged?: ModeChange;
}

/** What one enqueue does to the queue. */
export interface Admission<T> extends DepthChange {
  /** The item to drop (possibly the newcomer itself); absent below capacity. */
  readonly drop?: T;
}

/**
 * One enqueue: below capacity the newcomer joins; at capacity one item is dropped, chosen by
 * {@link dropVictim} among `droppable` (the queued items no reviewer holds) and the newcomer, so the
 * depth stays. `droppable` may hold just the lowest droppable item: only it can be the victim.
 */
export function admit<T extends Ranked>({
  policy,
  mode,
  depth,
  droppable,
  incoming,
  at,
}: {
  policy: Backpressure;
  mode: QueueMode;
  depth: number;
  droppable: readonly T[];
  incoming: T;
  at: number;
}): Admission<T> {
  if (depth < policy.capacity) return settle({ policy, mode, depth: depth + 1, at });
  return { drop: dropVictim({ queued: droppable, incoming }), ...settle({ policy, mode, depth, at }) };
}

/** One item leaves the queue (a verdict): the depth falls by one and the mode may return to normal. */
export function release({ policy, mode, depth, at }: { policy: Backpressure; mode: QueueMode; depth: number; at: number }): DepthChange {
  return settle({ policy, mode, depth: Math.max(0, depth - 1), at });
}

function settle({ policy, mode, depth, at }: { policy: Backpressure; mode: QueueMode; depth: number; at: number }): DepthChange {
  const to = nextMode({ mode, depth, policy });
  return to === mode ? { depth, mode } : { depth, mode: to, modeChanged: { from: mode, to, depth, at } };
}
