import type { RunPage } from './history.js';
import type { LedgerTally, RunRow, StoredRecord, StoredRun } from './ledger.js';
import type { RunCondition, RunQuery } from './run-query.js';

/**
 * The storage port under the one chained ledger (`ChainedLedger`), as a kysely dialect sits under its
 * query builder: the ledger chains, caches heads, turns refusals into `LedgerError`s, verifies imports
 * and reads filters; a store only writes and reads rows. A backend is a store, its migrations and its
 * opener (docs/ledger.md).
 *
 * A store keeps each run's row in step with its records and refuses what would break a chain, as the SQL
 * backends' triggers do: a record into a sealed run (`redline.ledger.sealed: …`), or one whose `seq` is
 * not the run's record count or whose `prevHash` is not the run's last hash (`redline.ledger.out_of_order:
 * …`). It throws those refusals as the database words them, or as a `LedgerError`.
 */
export interface LedgerStore {
  /**
   * Inserts a new run's row (no records yet, the genesis hash as its last) and then its records, in one
   * transaction: all of them or nothing. A run already stored is a duplicate key ({@link isDuplicateKey}).
   */
  insertRun(run: NewRun, records: readonly StoredRecord[]): Promise<void>;
  /** Inserts the next record of a stored run; the run's row advances with it (and is sealed by a seal). */
  insertRecord(record: StoredRecord): Promise<void>;
  run(runId: string): Promise<RunRow | undefined>;
  /** A run's records in `seq` order. */
  records(runId: string): Promise<readonly StoredRecord[]>;
  /** A run's row and its records, read in one snapshot; undefined for an unknown run. */
  readRun(runId: string): Promise<StoredRun | undefined>;
  runs(query: RunQuery): Promise<readonly RunRow[]>;
  /** The newest record of each named run (its seal once sealed); unknown runs are left out. */
  lastRecords(runIds: readonly string[]): Promise<readonly StoredRecord[]>;
  /** The sealed runs of `where` counted for the reports (see `Ledger.tally`), from one snapshot. */
  tally(where: readonly RunCondition[]): Promise<LedgerTally>;
  /** How many sealed runs `where` matches, through an index: whether a kept tally still holds. */
  sealedCount(where: readonly RunCondition[]): Promise<number>;
  /** The newest sealed run (in start order, then by id) of a mission with a plan hash, through an index. */
  latestSealed(missionId: string, planHash: string): Promise<RunRow | undefined>;
  /** Starts reading pages under one snapshot where the backend offers it (see {@link PageReader}). */
  snapshot(): Promise<PageReader>;
  /** Whether a write failed on a key already stored: two writers racing for one `seq`, or one run id. */
  isDuplicateKey(error: unknown): boolean;
  close(): Promise<void>;
}

/** The fields of a new run's row; the rest follows from its records. */
export type NewRun = Pick<RunRow, 'runId' | 'missionId' | 'taskType' | 'startedAt' | 'planHash' | 'resolves'>;

/** What a page reads: the runs' rows alone, with their records, or with their records and derived summaries (what verify checks). */
export type PageRead = 'runs' | 'records' | 'summaries';

/**
 * Pages of runs read for one stream: each page's runs and records agree, and where the backend offers
 * it every page comes from the snapshot taken when the reader started. `end` releases it, after the last
 * page or a failure.
 */
export interface PageReader {
  /**
   * Up to `limit` runs of the query with, as `read` asks, their records (ordered by run, then `seq`) and
   * the summaries the store derived at their seals, where it keeps them.
   */
  page(query: RunQuery & { readonly limit: number }, read: PageRead): Promise<RunPage>;
  end(failed: boolean): Promise<void>;
}
