import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LedgerRecord } from '../ledger/ledger.js';

/** Writes a run's records as JSON lines under `dir/runs/` and returns the file's path. */
export async function writeEvidence(dir: string, runId: string, records: readonly LedgerRecord[]): Promise<string> {
  const file = path.join(dir, 'runs', `${runId}.jsonl`);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, records.map((record) => JSON.stringify(record)).join('\n') + '\n');
  return file;
}
