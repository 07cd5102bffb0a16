import type { LedgerTally } from './ledger.js';

/** Tallies kept by filter unless told otherwise. */
const DEFAULT_ENTRIES = 32;

/**
 * The last tallies read, by filter, each with the number of sealed runs it counted. Sealed runs are
 * append-only (never changed, never deleted: the stores refuse it), so the tally of a filter changes
 * exactly when the number of sealed runs matching it does: a count, read through an index, tells whether a
 * kept tally still holds. A tally computed after its count may count more runs than it, never fewer: the
 * next count then differs and it is read again. The least recently used entry goes first.
 */
export class TallyCache {
  readonly #entries = new Map<string, { readonly sealed: number; readonly tally: Promise<LedgerTally> }>();
  readonly #size: number;

  constructor(size = DEFAULT_ENTRIES) {
    if (!Number.isInteger(size) || size < 1) throw new TypeError(`Expected size to be a positive integer, got ${String(size)}`);
    this.#size = size;
  }

  /** The kept tally of `key` when it counted `sealed` runs; else `read()`'s, kept. A failed read is not kept. */
  get(key: string, sealed: number, read: () => Promise<LedgerTally>): Promise<LedgerTally> {
    const kept = this.#entries.get(key);
    this.#entries.delete(key);
    const entry = kept !== undefined && kept.sealed === sealed ? kept : { sealed, tally: read() };
    this.#entries.set(key, entry);
    entry.tally.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    const oldest = this.#entries.keys().next().value;
    if (this.#entries.size > this.#size && oldest !== undefined) this.#entries.delete(oldest);
    return entry.tally;
  }
}
