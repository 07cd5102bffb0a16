import type { Ledger } from '../ledger/ledger.js';
import { openLedger } from '../ledger/open-ledger.js';

/**
 * The ledgers of one command, opened once per location and shared by its runs: concurrent runs of
 * `redline run a.yaml b.yaml --concurrency N` write through one connection (pool) per ledger.
 */
export class SharedLedgers {
  readonly #opened = new Map<string, Promise<Ledger>>();

  /** The ledger at `location`, opened on first use. */
  open(location: string): Promise<Ledger> {
    let ledger = this.#opened.get(location);
    if (ledger === undefined) {
      ledger = openLedger(location);
      this.#opened.set(location, ledger);
    }
    return ledger;
  }

  /** Closes every ledger that opened. */
  async close(): Promise<void> {
    const settled = await Promise.allSettled(this.#opened.values());
    this.#opened.clear();
    for (const result of settled) if (result.status === 'fulfilled') await result.value.close();
  }
}
