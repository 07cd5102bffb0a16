import { LedgerError } from '../errors/ledger-error.js';
import type { Ledger, RunRow, StoredRecord } from './ledger.js';
import { streamHistory } from './history.js';

/** One line of a JSONL export: a run row, then its records in order. */
export type ExportLine = ({ kind: 'run' } & RunRow) | ({ kind: 'record' } & StoredRecord);

/**
 * Every run (or one) as JSON lines, rows exactly as stored so that hashes survive the round trip. The
 * runs are read as a stream (`streamHistory`: pages under one snapshot where the ledger offers it), so a
 * live run exports as it stood and memory does not grow with the number of runs.
 */
export async function* exportJsonl(
  ledger: Ledger,
  { runId, pageSize }: { runId?: string; /** Runs read per round trip. */ pageSize?: number } = {},
): AsyncGenerator<string> {
  const stream = streamHistory(ledger, {
    ...(runId === undefined ? {} : { filter: { runId } }),
    ...(pageSize === undefined ? {} : { pageSize }),
  });
  for await (const { run, records } of stream) {
    yield JSON.stringify({ kind: 'run', ...run });
    for (const record of records) yield JSON.stringify({ kind: 'record', ...record });
  }
}

/**
 * Imports JSONL written by {@link exportJsonl}. Each run is checked (its chain must verify) and written
 * whole, or not at all. Returns the imported run ids.
 */
export async function importJsonl(ledger: Ledger, lines: AsyncIterable<string> | Iterable<string>): Promise<string[]> {
  const imported: string[] = [];
  let run: RunRow | undefined;
  let records: StoredRecord[] = [];
  const flush = async (): Promise<void> => {
    if (run === undefined) return;
    await ledger.import(run, records);
    imported.push(run.runId);
  };
  let number = 0;
  for await (const line of lines) {
    number += 1;
    if (line.trim() === '') continue;
    let parsed: ExportLine;
    try {
      parsed = JSON.parse(line) as ExportLine;
    } catch {
      throw new LedgerError({ code: 'ledger.import_malformed', runId: run?.runId ?? '?', message: `line ${number} is not JSON` });
    }
    if (parsed.kind === 'run') {
      await flush();
      const { kind: _kind, ...row } = parsed;
      run = row;
      records = [];
    } else if (parsed.kind === 'record' && run !== undefined && parsed.runId === run.runId) {
      const { kind: _kind, ...row } = parsed;
      records.push(row);
    } else {
      throw new LedgerError({
        code: 'ledger.import_malformed',
        runId: run?.runId ?? '?',
        message: `line ${number}: expected a run line or a record of the run above it`,
      });
    }
  }
  await flush();
  return imported;
}
