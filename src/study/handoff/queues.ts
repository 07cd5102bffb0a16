import { admit, release, type Backpressure, type DepthChange, type QueueMode } from '../../review/backpressure.js';
import type { Quality } from './model.js';

/** A brief waiting for review. */
export interface QueueItem {
  /** Arrival order over the whole simulation. */
  readonly seq: number;
  /** Minute it was produced and offered to the queue. */
  readonly arrivedAt: number;
  readonly quality: Quality;
  /** 0 (lowest) to `MAX_PRIORITY`. */
  readonly priority: number;
  /** Produced in degraded mode: one attempt, no refinement. */
  readonly draft: boolean;
}

/** The two queue models the study compares, behind one small interface. */
export interface StudyQueue {
  readonly depth: number;
  readonly mode: QueueMode;
  /** Mode changes so far. */
  readonly modeChanges: number;
  /** Offers an arriving item; returns the item dropped to make room (possibly `item` itself), if any. */
  offer(item: QueueItem): QueueItem | undefined;
  /** The next item a reviewer takes in `minute`, if any. */
  take(minute: number): QueueItem | undefined;
}

/** The simple model: FIFO; an item arriving at a full queue overflows. No modes. */
export class FifoQueue implements StudyQueue {
  readonly #capacity: number;
  readonly #items: QueueItem[] = [];
  readonly mode: QueueMode = 'normal';
  readonly modeChanges = 0;

  constructor({ capacity }: { capacity: number }) {
    this.#capacity = capacity;
  }

  get depth(): number {
    return this.#items.length;
  }

  offer(item: QueueItem): QueueItem | undefined {
    if (this.#items.length >= this.#capacity) return item;
    this.#items.push(item);
    return undefined;
  }

  take(): QueueItem | undefined {
    return this.#items.shift();
  }
}

/** Simulated milliseconds per minute, for the mode-change records' clock. */
const MINUTE_MS = 60_000;

/**
 * The review queue's full protocol (docs/review.md), decided by the review queue's own backpressure policy: reviewers take the
 * highest priority, then the oldest; at capacity the policy drops the lowest-priority item (then the
 * oldest); the watermarks switch the mode after every depth change.
 */
export class ProtocolQueue implements StudyQueue {
  readonly #policy: Backpressure;
  // At most `capacity` items: linear scans cost less than keeping a heap in order.
  readonly #items: QueueItem[] = [];
  #mode: QueueMode = 'normal';
  #modeChanges = 0;

  constructor(policy: Backpressure) {
    this.#policy = policy;
  }

  get depth(): number {
    return this.#items.length;
  }

  get mode(): QueueMode {
    return this.#mode;
  }

  get modeChanges(): number {
    return this.#modeChanges;
  }

  offer(item: QueueItem): QueueItem | undefined {
    const { drop } = this.#settle(
      admit({
        policy: this.#policy,
        mode: this.#mode,
        depth: this.#items.length,
        droppable: this.#items,
        incoming: item,
        at: item.arrivedAt * MINUTE_MS,
      }),
    );
    if (drop === item) return item;
    if (drop !== undefined) this.#items.splice(this.#items.indexOf(drop), 1);
    this.#items.push(item);
    return drop;
  }

  take(minute: number): QueueItem | undefined {
    let next: QueueItem | undefined;
    for (const item of this.#items) {
      if (next === undefined || item.priority > next.priority || (item.priority === next.priority && item.seq < next.seq)) next = item;
    }
    if (next === undefined) return undefined;
    this.#settle(release({ policy: this.#policy, mode: this.#mode, depth: this.#items.length, at: minute * MINUTE_MS }));
    this.#items.splice(this.#items.indexOf(next), 1);
    return next;
  }

  #settle<C extends DepthChange>(change: C): C {
    if (change.modeChanged !== undefined) this.#modeChanges += 1;
    this.#mode = change.mode;
    return change;
  }
}
