import { GENESIS } from '../../core/hash-chain.js';
import { LedgerError } from '../../errors/ledger-error.js';
import type { PageKey, RunPage } from '../history.js';
import type { LedgerTally, RunRow, StoredRecord, StoredRun } from '../ledger.js';
import type { LedgerStore, NewRun, PageReader } from '../ledger-store.js';
import { meets, startOrder, type RunCondition, type RunQuery } from '../run-query.js';
import { tallyRuns } from '../run-tally.js';
import { sealFields } from '../run-row.js';

/** A run as held: its row, replaced on every append, and its records, which only grow. */
interface Entry {
  run: RunRow;
  readonly rows: StoredRecord[];
}

const refused = (runId: string, code: 'ledger.sealed' | 'ledger.out_of_order', message: string): LedgerError =>
  new LedgerError({ code, runId, message: `run ${runId}: ${message}` });

/** Adds a record to a run, refusing what the SQL backends' triggers refuse, and advances the run's row. */
function advance(entry: Entry, row: StoredRecord): void {
  const { run } = entry;
  if (run.sealed) throw refused(run.runId, 'ledger.sealed', 'the run is sealed and accepts no more records');
  if (row.seq !== run.recordCount || row.prevHash !== run.lastHash)
    throw refused(run.runId, 'ledger.out_of_order', "the record does not follow the run's last record");
  entry.rows.push(row);
  entry.run = {
    ...run,
    recordCount: row.seq + 1,
    lastHash: row.hash,
    ...(row.type === 'run.sealed' ? { sealed: true, ...sealFields(row.body) } : {}),
  };
}

/** The entries (in start order) whose runs a query reads. */
function select(entries: readonly Entry[], { where, after, limit = Infinity, newestFirst = false }: RunQuery): Entry[] {
  if (newestFirst) {
    const before = after === undefined ? entries : entries.filter((entry) => startOrder(entry.run, after) < 0);
    return before
      .filter((entry) => meets(entry.run, where))
      .reverse()
      .slice(0, limit);
  }
  const selected: Entry[] = [];
  for (let index = after === undefined ? 0 : firstAfter(entries, after); index < entries.length && selected.length < limit; index += 1) {
    const entry = entries[index] as Entry;
    if (meets(entry.run, where)) selected.push(entry);
  }
  return selected;
}

/** The index of the first entry after `key` in start order (a binary search). */
function firstAfter(entries: readonly Entry[], key: PageKey): number {
  let [low, high] = [0, entries.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (startOrder((entries[middle] as Entry).run, key) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A ledger's runs held in memory: for tests, benchmarks and library use without persistence. */
export class MemoryLedgerStore implements LedgerStore {
  readonly #runs = new Map<string, Entry>();

  async insertRun(run: NewRun, records: readonly StoredRecord[]): Promise<void> {
    if (this.#runs.has(run.runId)) throw refused(run.runId, 'ledger.out_of_order', 'the run is already started');
    const entry: Entry = { run: { ...run, recordCount: 0, lastHash: GENESIS, sealed: false }, rows: [] };
    // The run joins only once every record went in: a refused one leaves nothing behind.
    for (const row of records) advance(entry, row);
    this.#runs.set(run.runId, entry);
  }

  async insertRecord(record: StoredRecord): Promise<void> {
    const entry = this.#runs.get(record.runId);
    if (entry === undefined) throw refused(record.runId, 'ledger.out_of_order', 'the run has no record to follow');
    advance(entry, record);
  }

  async run(runId: string): Promise<RunRow | undefined> {
    return this.#runs.get(runId)?.run;
  }

  async records(runId: string): Promise<readonly StoredRecord[]> {
    return [...(this.#runs.get(runId)?.rows ?? [])];
  }

  async readRun(runId: string): Promise<StoredRun | undefined> {
    const entry = this.#runs.get(runId);
    return entry === undefined ? undefined : { run: entry.run, records: [...entry.rows] };
  }

  async runs(query: RunQuery): Promise<readonly RunRow[]> {
    return select(this.#sorted(), query).map((entry) => entry.run);
  }

  async lastRecords(runIds: readonly string[]): Promise<readonly StoredRecord[]> {
    return runIds.flatMap((runId) => this.#runs.get(runId)?.rows.slice(-1) ?? []);
  }

  tally(where: readonly RunCondition[]): Promise<LedgerTally> {
    return tallyRuns(this.#sealed(where).map(({ run, rows }) => ({ run, records: rows })));
  }

  async sealedCount(where: readonly RunCondition[]): Promise<number> {
    return this.#sealed(where).length;
  }

  async latestSealed(missionId: string, planHash: string): Promise<RunRow | undefined> {
    const where = [
      { field: 'missionId', op: '=', value: missionId },
      { field: 'planHash', op: '=', value: planHash },
      { field: 'sealed', op: '=', value: true },
    ] as const;
    return (await this.runs({ where })).at(-1);
  }

  /**
   * The snapshot is each run's row as the reader starts, with its records up to that row's count: appends
   * made while the pages are read neither show nor make a row and its records disagree.
   */
  async snapshot(): Promise<PageReader> {
    const entries = this.#sorted().map(({ run, rows }) => ({ run, rows }));
    return {
      async page(query, read): Promise<RunPage> {
        const selected = select(entries, query);
        const records = read !== 'runs' ? selected.flatMap(({ run, rows }) => rows.slice(0, run.recordCount)) : [];
        return { runs: selected.map((entry) => entry.run), records };
      },
      async end() {},
    };
  }

  isDuplicateKey(): boolean {
    return false;
  }

  async close(): Promise<void> {}

  #sealed(where: readonly RunCondition[]): Entry[] {
    return select(this.#sorted(), { where: [...where, { field: 'sealed', op: '=', value: true }] });
  }

  #sorted(): Entry[] {
    return [...this.#runs.values()].sort((a, b) => startOrder(a.run, b.run));
  }
}
