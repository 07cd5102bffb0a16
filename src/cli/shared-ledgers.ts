import type { Ledger } from '../ledger/ledger.js';
import { openLedger } from '../ledger/open-ledger.js';
import type { QueueOnFirstNeed } from './review-handoff.js';

/**
 * The ledgers of one command, opened once per location and shared by its runs: concurrent runs of
 * `redline run a.yaml b.yaml --concurrency N` write through one connection (pool) per ledger, and
 * hand off to one review queue per ledger that has none yet (created by the first run that needs it).
 */
export class SharedLedgers {
  readonly #opened = new Map<string, Promise<Ledger>>();
  readonly #queues = new Map<string, QueueOnFirstNeed>();

  /** The deferred review queue of the ledger at `location`, made by `make` on first use. */
  queueOnFirstNeed(location: string, make: () => QueueOnFirstNeed): QueueOnFirstNeed {
    let queue = this.#queues.get(location);
    if (queue === undefined) {
      queue = make();
      this.#queues.set(location, queue);
    }
    return queue;
  }

  /** The ledger at `location`, opened on first use. */
  open(location: string): Promise<Ledger> {
    let ledger = this.#opened.get(location);
    if (ledger === undefined) {
      ledger = openLedger(location);
      this.#opened.set(location, ledger);
    }
    return ledger;
  }

  /** Closes every review queue and ledger that opened. */
  async close(): Promise<void> {
    const queues = [...this.#queues.values()];
    this.#queues.clear();
    await Promise.allSettled(queues.map(async (queue) => queue.close()));
    const settled = await Promise.allSettled(this.#opened.values());
    this.#opened.clear();
    for (const result of settled) if (result.status === 'fulfilled') await result.value.close();
  }
}
