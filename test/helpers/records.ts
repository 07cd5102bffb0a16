import type { RecordType, RunRecord, RunRecordData } from '../../src/ledger/run-records.js';

/** The data of a run's first record of `type` (its last with `which: 'last'`); throws when the run has none. */
export function dataOf<T extends RecordType>(records: readonly RunRecord[], type: T, which: 'first' | 'last' = 'first'): RunRecordData[T] {
  const found = records.filter((record) => record.type === type);
  const record = which === 'first' ? found[0] : found.at(-1);
  if (record === undefined) throw new Error(`Expected a ${type} record, got none among ${records.length}`);
  // Found by its type: its data is that type's (TypeScript does not narrow a union by a generic type).
  return record.data as RunRecordData[T];
}
