import { ChainedLedger } from '../chained-ledger.js';
import type { PriorsStore } from '../priors-store.js';
import { MemoryLedgerStore } from './memory-ledger-store.js';

/** Priors held in memory as JSON text, as the SQL backends keep them: every read hands out a fresh copy. */
function memoryPriorsStore(): PriorsStore {
  const entries = new Map<string, string>();
  return {
    async read(taskType) {
      return entries.get(taskType);
    },
    // Read and write with no await between them, so two updates cannot interleave and lose one.
    async update(taskType, next) {
      entries.set(taskType, next(entries.get(taskType)));
    },
  };
}

/** A ledger held in memory: for tests, benchmarks and library use without persistence. */
export class MemoryLedger extends ChainedLedger {
  constructor() {
    super(new MemoryLedgerStore(), memoryPriorsStore());
  }
}
