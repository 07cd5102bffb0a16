import { LedgerError } from '../../errors/ledger-error.js';
import { chainRecord, parseRecord } from '../chain.js';
import { GENESIS } from '../../core/hash-chain.js';
import { pageSizeOf } from '../history.js';
import type {
  Ledger,
  LedgerHead,
  LedgerRecord,
  RunFilter,
  RunRecord,
  RunRow,
  StoredRecord,
  StoredRun,
  StreamOptions,
  TaskPriors,
} from '../ledger.js';
import { expectLearnable, learnedPriors, parsePriors } from '../priors.js';
import { linkFields, openedRun, sealFields } from '../run-row.js';
import { verifyRun } from '../verify.js';

/** A ledger held in memory: for tests, benchmarks and library use without persistence. */
export class MemoryLedger implements Ledger {
  readonly #runs = new Map<string, { run: RunRow; rows: StoredRecord[] }>();
  /** Priors per task type as JSON text, as the SQL backends keep them: every read hands out a fresh copy. */
  readonly #priors = new Map<string, string>();

  async append(record: LedgerRecord): Promise<StoredRecord> {
    const entry = this.#runs.get(record.runId);
    if (entry === undefined && record.seq !== 0) {
      throw new LedgerError({
        code: 'ledger.out_of_order',
        runId: record.runId,
        message: `run ${record.runId}: expected record 0, got ${record.seq}`,
      });
    }
    if (entry === undefined) {
      const stored = chainRecord(GENESIS, record);
      this.#runs.set(record.runId, { run: openedRun(record, stored), rows: [stored] });
      return stored;
    }
    if (entry.run.sealed)
      throw new LedgerError({
        code: 'ledger.sealed',
        runId: record.runId,
        message: `run ${record.runId} is sealed and accepts no more records`,
      });
    if (record.seq !== entry.run.recordCount) {
      throw new LedgerError({
        code: 'ledger.out_of_order',
        runId: record.runId,
        message: `run ${record.runId}: expected record ${entry.run.recordCount}, got ${record.seq}`,
      });
    }
    const stored = chainRecord(entry.run.lastHash, record);
    entry.rows.push(stored);
    entry.run = {
      ...entry.run,
      recordCount: record.seq + 1,
      lastHash: stored.hash,
      ...(record.type === 'run.sealed' ? { sealed: true, ...sealFields(record) } : {}),
    };
    return stored;
  }

  async head(runId: string): Promise<LedgerHead> {
    const run = this.#runs.get(runId)?.run;
    return { count: run?.recordCount ?? 0, sealed: run?.sealed ?? false };
  }

  async records(runId: string): Promise<readonly RunRecord[]> {
    return (this.#runs.get(runId)?.rows ?? []).map(parseRecord);
  }

  async stored(runId: string): Promise<readonly StoredRecord[]> {
    return [...(this.#runs.get(runId)?.rows ?? [])];
  }

  async storedRun(runId: string): Promise<StoredRun | undefined> {
    const entry = this.#runs.get(runId);
    return entry === undefined ? undefined : { run: entry.run, records: [...entry.rows] };
  }

  async runs(filter: RunFilter = {}): Promise<readonly RunRow[]> {
    return [...this.#runs.values()]
      .map((entry) => entry.run)
      .sort((a, b) => a.startedAt - b.startedAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))
      .filter(
        (run) =>
          (filter.unsealed !== true || !run.sealed) &&
          (filter.taskType === undefined || run.taskType === filter.taskType) &&
          (filter.since === undefined || run.startedAt >= filter.since) &&
          (filter.runId === undefined || run.runId === filter.runId) &&
          (filter.missionId === undefined || run.missionId === filter.missionId) &&
          (filter.planHash === undefined || run.planHash === filter.planHash) &&
          (filter.resolves === undefined || run.resolves === filter.resolves),
      );
  }

  async latestSealed({ missionId, planHash }: { missionId: string; planHash: string }): Promise<RunRow | undefined> {
    return (await this.runs({ missionId, planHash })).findLast((run) => run.sealed);
  }

  async *streamHistory(options: StreamOptions = {}): AsyncGenerator<StoredRun> {
    pageSizeOf(options);
    // The snapshot is each run's row and record count as the stream starts: appends made while it is read
    // neither show nor make a row and its records disagree (the rows array only grows).
    const snapshot = (await this.runs(options.filter)).map((run) => ({ run, rows: this.#runs.get(run.runId)?.rows ?? [] }));
    for (const { run, rows } of snapshot) yield { run, records: rows.slice(0, run.recordCount) };
  }

  async *streamRuns(options: StreamOptions = {}): AsyncGenerator<RunRow> {
    pageSizeOf(options);
    yield* await this.runs(options.filter);
  }

  async import(run: RunRow, records: readonly StoredRecord[]): Promise<void> {
    const check = verifyRun(run, records);
    if (!check.ok)
      throw new LedgerError({
        code: 'ledger.import_broken',
        runId: run.runId,
        message: `run ${run.runId} does not verify: ${check.firstBad?.detail}`,
      });
    if (this.#runs.has(run.runId))
      throw new LedgerError({ code: 'ledger.exists', runId: run.runId, message: `run ${run.runId} is already in this ledger` });
    // The link fields come from the chained `run.started` record, not from the exported row.
    const { planHash: _planHash, resolves: _resolves, ...row } = run;
    const link = records[0] === undefined ? {} : linkFields(parseRecord(records[0]));
    this.#runs.set(run.runId, { run: { ...row, ...link }, rows: [...records] });
  }

  async priors(taskType: string): Promise<TaskPriors | undefined> {
    const text = this.#priors.get(taskType);
    return text === undefined ? undefined : parsePriors(taskType, text);
  }

  async learn(taskType: string, scores: readonly number[]): Promise<void> {
    expectLearnable(taskType, scores);
    // Read and write with no await between them, so two learns cannot interleave and lose one.
    const text = this.#priors.get(taskType);
    this.#priors.set(
      taskType,
      JSON.stringify(learnedPriors(taskType, text === undefined ? undefined : parsePriors(taskType, text), scores)),
    );
  }

  async close(): Promise<void> {}
}
