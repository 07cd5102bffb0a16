import type { Ledger, RunRow, RunSummary, StoredRecord, StoredRun, StreamOptions } from './ledger.js';

/** Runs a stream reads per round trip unless told otherwise. */
export const DEFAULT_PAGE_SIZE = 64;

/** The page size of `options`, checked: a positive integer. */
export function pageSizeOf(options: StreamOptions = {}): number {
  const { pageSize = DEFAULT_PAGE_SIZE } = options;
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new TypeError(`Expected pageSize to be a positive integer, got ${String(pageSize)}`);
  return pageSize;
}

/**
 * A listed run's row and records as they stand now, from one snapshot where the ledger offers it
 * (`storedRun`); undefined when the run is gone.
 */
export async function readRun(ledger: Ledger, listed: RunRow): Promise<StoredRun | undefined> {
  return ledger.storedRun === undefined ? { run: listed, records: await ledger.stored(listed.runId) } : ledger.storedRun(listed.runId);
}

/**
 * Every run matching the filter with its stored records, in start order: the ledger's own stream where it
 * has one (pages under one snapshot, memory flat in the number of runs), else the run list read up front
 * and each run read apart.
 */
export async function* streamHistory(ledger: Ledger, options: StreamOptions = {}): AsyncGenerator<StoredRun> {
  if (ledger.streamHistory !== undefined) {
    yield* ledger.streamHistory(options);
    return;
  }
  for (const listed of await ledger.runs(options.filter)) {
    const snapshot = await readRun(ledger, listed);
    if (snapshot !== undefined) yield snapshot;
  }
}

/** The run rows matching the filter, in start order: the ledger's own stream where it has one. */
export async function* streamRuns(ledger: Ledger, options: StreamOptions = {}): AsyncGenerator<RunRow> {
  if (ledger.streamRuns !== undefined) yield* ledger.streamRuns(options);
  else yield* await ledger.runs(options.filter);
}

/** Where a keyset page ends: the last run's start time and id. */
export interface PageKey {
  readonly startedAt: number;
  readonly runId: string;
}

/** One page of runs and the stored records of those runs (ordered by run, then `seq`), read together. */
export interface RunPage {
  readonly runs: readonly RunRow[];
  readonly records: readonly StoredRecord[];
  /** What the store derived at each run's seal, by run id, where it keeps it (the SQL stores, with records). */
  readonly summaries?: ReadonlyMap<string, RunSummary>;
}

/**
 * Reads runs page by page for the SQL backends: `page` returns up to `limit` runs after `after` (the
 * backend's `ORDER BY started_at, run_id` and the matching row comparison) with their records, both from
 * the same snapshot. Only one page is held at a time.
 */
export async function* keysetPages({
  pageSize,
  page,
}: {
  pageSize: number;
  page: (after: PageKey | undefined, limit: number) => Promise<RunPage>;
}): AsyncGenerator<StoredRun> {
  let after: PageKey | undefined;
  for (;;) {
    const { runs, records, summaries } = await page(after, pageSize);
    if (runs.length === 0) return;
    const byRun = new Map<string, StoredRecord[]>(runs.map((run) => [run.runId, []]));
    for (const record of records) byRun.get(record.runId)?.push(record);
    for (const run of runs) {
      const summary = summaries?.get(run.runId);
      yield { run, records: byRun.get(run.runId) ?? [], ...(summary === undefined ? {} : { summary }) };
    }
    const last = runs.at(-1) as RunRow;
    after = { startedAt: last.startedAt, runId: last.runId };
    // A short page is the last one: no need to ask for an empty one.
    if (runs.length < pageSize) return;
  }
}
