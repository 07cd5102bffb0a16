import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import type { RecordType, RunRecord, RunRecordData } from '../../src/ledger/run-records.js';

/** The data of a run's first record of `type` (its last with `which: 'last'`); throws when the run has none. */
export function dataOf<T extends RecordType>(records: readonly RunRecord[], type: T, which: 'first' | 'last' = 'first'): RunRecordData[T] {
  const found = records.filter((record) => record.type === type);
  const record = which === 'first' ? found[0] : found.at(-1);
  if (record === undefined) throw new Error(`Expected a ${type} record, got none among ${records.length}`);
  // Found by its type: its data is that type's (TypeScript does not narrow a union by a generic type).
  return record.data as RunRecordData[T];
}

/** The data of the first `attempt` record of run `runId` in the SQLite ledger file `ledger` (`{}` when it has none). */
export async function firstAttemptIn(ledger: string, runId: string): Promise<Record<string, unknown>> {
  const open = await SqliteLedger.open({ database: ledger });
  try {
    const record = (await open.records(runId)).find((item) => item.type === 'attempt');
    return (record?.data ?? {}) as Record<string, unknown>;
  } finally {
    await open.close();
  }
}
