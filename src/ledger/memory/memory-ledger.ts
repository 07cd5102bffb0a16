import { LedgerError } from '../../errors/ledger-error.js';
import type { Ledger, LedgerHead, LedgerRecord } from '../ledger.js';

/** A ledger held in memory: for tests, benchmarks and library use without persistence. */
export class MemoryLedger implements Ledger {
  readonly #runs = new Map<string, LedgerRecord[]>();

  async append(record: LedgerRecord): Promise<void> {
    let records = this.#runs.get(record.runId);
    if (records === undefined) {
      records = [];
      this.#runs.set(record.runId, records);
    }
    if (records.at(-1)?.type === 'run.sealed') {
      throw new LedgerError({ code: 'ledger.sealed', runId: record.runId, message: `run ${record.runId} is sealed and accepts no more records` });
    }
    if (record.seq !== records.length) {
      throw new LedgerError({ code: 'ledger.out_of_order', runId: record.runId, message: `run ${record.runId}: expected record ${records.length}, got ${record.seq}` });
    }
    // Records are built fresh by the loop and never mutated after they are appended.
    records.push(record);
  }

  async head(runId: string): Promise<LedgerHead> {
    const records = this.#runs.get(runId) ?? [];
    return { count: records.length, sealed: records.at(-1)?.type === 'run.sealed' };
  }

  async records(runId: string): Promise<readonly LedgerRecord[]> {
    return this.#runs.get(runId) ?? [];
  }

  async runs(): Promise<readonly string[]> {
    return [...this.#runs.keys()];
  }

  async close(): Promise<void> {}
}
