import { GENESIS } from '../core/hash-chain.js';
import { LedgerError } from '../errors/ledger-error.js';
import { chainRecord, parseRecord } from './chain.js';
import { keysetPages, pageSizeOf } from './history.js';
import type {
  LearnedPriors,
  Ledger,
  LedgerHead,
  LedgerTally,
  LedgerRecord,
  RunFilter,
  RunRecord,
  RunPageQuery,
  RunRow,
  StoredRecord,
  StoredRun,
  StreamOptions,
  TallyFilter,
  TaskPriors,
} from './ledger.js';
import type { LedgerStore, PageRead } from './ledger-store.js';
import { StoredPriors } from './priors.js';
import { TallyCache } from './tally-cache.js';
import type { PriorsStore } from './priors-store.js';
import { runConditions } from './run-query.js';
import { linkFields, openedRun } from './run-row.js';
import { verifyRun } from './verify.js';

/**
 * The one ledger over any {@link LedgerStore}, as the review queue is one queue over its store: records
 * are chained here, each run's last hash cached (one read per run a process resumes, none per append),
 * the store's refusals turned into `LedgerError`s, imports verified before they are written and filters
 * read into conditions; the store only writes and reads rows. The priors live beside it, over their own
 * {@link PriorsStore}. Each backend is a store and an opener (`SqliteLedger`, `PostgresLedger`,
 * `MemoryLedger`); see docs/ledger.md.
 */
export class ChainedLedger implements Ledger {
  readonly #store: LedgerStore;
  readonly #priors: LearnedPriors;
  /** The last hash of each run this ledger appended to, until its seal; dropped on any refusal. */
  readonly #heads = new Map<string, string>();
  readonly #tallies = new TallyCache();

  constructor(store: LedgerStore, priors: PriorsStore) {
    this.#store = store;
    this.#priors = new StoredPriors(priors);
  }

  async append(record: LedgerRecord): Promise<StoredRecord> {
    try {
      if (record.seq === 0) {
        const stored = chainRecord(GENESIS, record);
        await this.#store.insertRun(openedRun(record, stored), [stored]);
        this.#heads.set(record.runId, stored.hash);
        return stored;
      }
      // The cached head may be stale (another process appended): the store then refuses the record.
      const prevHash = this.#heads.get(record.runId) ?? (await this.#store.run(record.runId))?.lastHash ?? GENESIS;
      const stored = chainRecord(prevHash, record);
      await this.#store.insertRecord(stored);
      if (record.type === 'run.sealed') this.#heads.delete(record.runId);
      else this.#heads.set(record.runId, stored.hash);
      return stored;
    } catch (error) {
      this.#heads.delete(record.runId);
      throw this.#refusal(error, record.runId);
    }
  }

  async head(runId: string): Promise<LedgerHead> {
    const run = await this.#store.run(runId);
    return { count: run?.recordCount ?? 0, sealed: run?.sealed ?? false };
  }

  async records(runId: string): Promise<readonly RunRecord[]> {
    return (await this.#store.records(runId)).map(parseRecord);
  }

  stored(runId: string): Promise<readonly StoredRecord[]> {
    return this.#store.records(runId);
  }

  storedRun(runId: string): Promise<StoredRun | undefined> {
    return this.#store.readRun(runId);
  }

  runs(filter?: RunFilter): Promise<readonly RunRow[]> {
    return this.#store.runs({ where: runConditions(filter) });
  }

  runPage({ filter, before, limit }: RunPageQuery): Promise<readonly RunRow[]> {
    if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`Expected limit to be a positive integer, got ${String(limit)}`);
    return this.#store.runs({ where: runConditions(filter), after: before, limit, newestFirst: true });
  }

  lastRecords(runIds: readonly string[]): Promise<readonly StoredRecord[]> {
    return runIds.length === 0 ? Promise.resolve([]) : this.#store.lastRecords(runIds);
  }

  /** Kept by filter while the number of sealed runs it matches stays the same (see `TallyCache`). */
  async tally(filter: TallyFilter = {}): Promise<LedgerTally> {
    const where = runConditions(filter);
    const sealed = await this.#store.sealedCount(where);
    return this.#tallies.get(JSON.stringify(where), sealed, () => this.#store.tally(where));
  }

  latestSealed({ missionId, planHash }: { readonly missionId: string; readonly planHash: string }): Promise<RunRow | undefined> {
    return this.#store.latestSealed(missionId, planHash);
  }

  streamHistory(options: StreamOptions = {}): AsyncGenerator<StoredRun> {
    return this.#stream(options, options.summaries === true ? 'summaries' : 'records');
  }

  async *streamRuns(options: StreamOptions = {}): AsyncGenerator<RunRow> {
    for await (const { run } of this.#stream(options, 'runs')) yield run;
  }

  /** Keyset pages of the store's snapshot, one page held at a time. */
  async *#stream(options: StreamOptions, read: PageRead): AsyncGenerator<StoredRun> {
    const pageSize = pageSizeOf(options);
    const where = runConditions(options.filter);
    const reader = await this.#store.snapshot();
    let failed = false;
    try {
      yield* keysetPages({
        pageSize,
        page: (after, limit) => reader.page({ where, after, limit }, read),
      });
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      await reader.end(failed);
    }
  }

  async import(run: RunRow, records: readonly StoredRecord[]): Promise<void> {
    const check = verifyRun(run, records);
    if (!check.ok)
      throw new LedgerError({
        code: 'ledger.import_broken',
        runId: run.runId,
        message: `run ${run.runId} does not verify: ${check.firstBad?.detail}`,
      });
    if ((await this.#store.run(run.runId)) !== undefined)
      throw new LedgerError({ code: 'ledger.exists', runId: run.runId, message: `run ${run.runId} is already in this ledger` });
    // The link fields come from the chained `run.started` record, not from the exported row.
    const link = records[0] === undefined ? {} : linkFields(parseRecord(records[0]));
    const { runId, missionId, taskType, startedAt } = run;
    try {
      await this.#store.insertRun({ runId, missionId, taskType, startedAt, ...link }, records);
    } catch (error) {
      throw this.#refusal(error, runId);
    }
  }

  priors(taskType: string): Promise<TaskPriors | undefined> {
    return this.#priors.priors(taskType);
  }

  learn(taskType: string, scores: readonly number[]): Promise<void> {
    return this.#priors.learn(taskType, scores);
  }

  close(): Promise<void> {
    return this.#store.close();
  }

  /**
   * What the store threw, as a `LedgerError` with a stable code: the triggers word their refusals
   * `redline.ledger.<code>: …`; a duplicate key (two writers racing for one `seq`, or a run started twice)
   * is `ledger.out_of_order`. A `LedgerError` stays as it is.
   */
  #refusal(error: unknown, runId: string): LedgerError {
    if (error instanceof LedgerError) return error;
    const message = (error as Error)?.message ?? String(error);
    const code =
      /redline\.(ledger\.[a-z_]+)/.exec(message)?.[1] ??
      (this.#store.isDuplicateKey(error) ? 'ledger.out_of_order' : 'ledger.write_failed');
    return new LedgerError({ code, runId, message: `run ${runId}: ${message.replace(/^redline\.ledger\.[a-z_]+: /, '')}`, cause: error });
  }
}
