import type { Ledger } from '../../src/ledger/ledger.js';

/**
 * A ledger that passes each required method of the port to `inner`, except those `overrides` replace. The
 * optional reads (`storedRun`, `streamHistory`, `streamRuns`) are left out unless given, so callers take
 * their fallbacks. `close` leaves `inner` open unless overridden: the test closes it.
 */
export function wrapLedger(inner: Ledger, overrides: Partial<Ledger> = {}): Ledger {
  return {
    append: (record) => inner.append(record),
    head: (runId) => inner.head(runId),
    records: (runId) => inner.records(runId),
    stored: (runId) => inner.stored(runId),
    runs: (filter) => inner.runs(filter),
    import: (run, records) => inner.import(run, records),
    priors: (taskType) => inner.priors(taskType),
    learn: (taskType, scores) => inner.learn(taskType, scores),
    close: async () => {},
    ...overrides,
  };
}

/** The ledger of a process that dies after `limit` appends: every later append throws. */
export function dyingAfter(inner: Ledger, limit: number): Ledger {
  let appended = 0;
  return wrapLedger(inner, {
    append: async (record) => {
      if (appended >= limit) throw new Error('process killed');
      appended += 1;
      return inner.append(record);
    },
  });
}
