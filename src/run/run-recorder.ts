import type { Ledger, RunRecord } from '../ledger/ledger.js';
import type { RunRecordBody, SealedData } from '../ledger/run-records.js';
import { sealSignature, type Signer } from '../ledger/seal-signature.js';

/** A record the loop appends before its seal: any type but `run.sealed`, which only {@link RunRecorder.seal} writes. */
export type OpenRecordBody = Exclude<RunRecordBody, { readonly type: 'run.sealed' }>;

export interface RunRecorderOptions {
  readonly ledger: Ledger;
  readonly runId: string;
  /** Records the run already has (a resumed or recovered run goes on after them). @default 0 */
  readonly seq?: number;
  /** The hash of the run's newest stored record, when one was read (recovery); the next append sets it otherwise. */
  readonly lastHash?: string;
  /** Signs the seal over the hash of the record before it; without one the seal is unsigned. */
  readonly signer?: Signer | undefined;
  readonly now: () => number;
  /** Sees every record right after it is appended. */
  readonly onRecord?: ((record: RunRecord) => void) | undefined;
}

/**
 * The one writer of a run's records: it numbers them, stamps their time, keeps the hash of the newest, and
 * alone writes the seal (signed over that hash, which chains every record of the run). Every path that
 * records a run — the loop, recovery of a crashed run, the AI SDK adapter — appends through one.
 */
export class RunRecorder {
  readonly runId: string;
  readonly #ledger: Ledger;
  readonly #signer: Signer | undefined;
  readonly #now: () => number;
  readonly #onRecord: ((record: RunRecord) => void) | undefined;
  #seq: number;
  #lastHash: string | undefined;
  #sealed = false;

  constructor(options: RunRecorderOptions) {
    this.runId = options.runId;
    this.#ledger = options.ledger;
    this.#signer = options.signer;
    this.#now = options.now;
    this.#onRecord = options.onRecord;
    this.#seq = options.seq ?? 0;
    this.#lastHash = options.lastHash;
  }

  /** Records stored so far: the next record's `seq`. */
  get seq(): number {
    return this.#seq;
  }

  /** The hash of the newest record this recorder appended (or was given), if any. */
  get lastHash(): string | undefined {
    return this.#lastHash;
  }

  /** Whether the seal was written. */
  get sealed(): boolean {
    return this.#sealed;
  }

  /** Appends one record of the open run. */
  async append(body: OpenRecordBody): Promise<void> {
    await this.#write({ runId: this.runId, seq: this.#seq, at: this.#now(), ...body });
  }

  /** Appends the seal: signed, when there is a signer and a record before it to sign over. */
  async seal(data: SealedData): Promise<void> {
    const unsigned: RunRecord = { runId: this.runId, seq: this.#seq, at: this.#now(), type: 'run.sealed', data };
    const prevHash = this.#lastHash;
    const signer = this.#signer;
    await this.#write(
      signer === undefined || prevHash === undefined
        ? unsigned
        : { ...unsigned, data: { ...data, signature: sealSignature({ signer, prevHash, seal: unsigned }) } },
    );
    this.#sealed = true;
  }

  async #write(entry: RunRecord): Promise<void> {
    this.#lastHash = (await this.#ledger.append(entry)).hash;
    this.#seq += 1;
    this.#onRecord?.(entry);
  }
}
