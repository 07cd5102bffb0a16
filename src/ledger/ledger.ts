import type { PriorsSnapshot } from '../guards/adaptive-priors.js';
import type { RecordType, RunRecord } from './run-records.js';

export type { RecordType, RunRecord } from './run-records.js';

/**
 * One event of a run as it is appended: the loop appends {@link RunRecord}s (typed by `type`); the port
 * stores any record's data as given, and reads every record back parsed (`records`).
 * `seq` starts at 0 for `run.started`; the seal is the last.
 */
export interface LedgerRecord {
  readonly runId: string;
  readonly seq: number;
  readonly type: RecordType;
  /** Milliseconds since the epoch, by the run's clock. */
  readonly at: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * A record as stored: `body` is the canonical JSON of the {@link LedgerRecord} and
 * `hash = sha256(prevHash ‖ body)`, so any change to a stored row breaks the chain.
 */
export interface StoredRecord {
  readonly runId: string;
  readonly seq: number;
  readonly type: string;
  readonly body: string;
  readonly prevHash: string;
  readonly hash: string;
}

/** What the ledger keeps per run besides its records; updated in the same transaction as each append. */
export interface RunRow {
  readonly runId: string;
  readonly missionId: string;
  readonly taskType: string;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
  /** Records appended, by the ledger's own count. */
  readonly recordCount: number;
  /** Hash of the newest record. */
  readonly lastHash: string;
  readonly sealed: boolean;
  readonly outcome?: string;
  readonly verification?: string;
  readonly stopReason?: string;
  /** The run's plan hash (mission + proposer identity, `run.started`'s `plan.hash`); runs recorded before plans: none. */
  readonly planHash?: string;
  /** The sealed run this run resolves (a linked run, `run.started`'s `resolves.runId`). */
  readonly resolves?: string;
}

/** The newest state of a run, to prove retained records agree with the working state. */
export interface LedgerHead {
  readonly count: number;
  readonly sealed: boolean;
}

export interface RunFilter {
  /** Only runs not sealed yet (crashed or still running). */
  readonly unsealed?: boolean;
  readonly taskType?: string;
  /** Only runs started at or after this time (ms since the epoch). */
  readonly since?: number;
  /** Only runs started before this time (ms since the epoch). */
  readonly until?: number;
  /** Only sealed runs with this outcome. */
  readonly outcome?: string;
  readonly runId?: string;
  readonly missionId?: string;
  /** Only runs with this plan hash. */
  readonly planHash?: string;
  /** Only the runs linked to this run: those that resolve it. */
  readonly resolves?: string;
}

/** Sealed runs counted together: those that started the same UTC day and ended alike under the same guards. */
export interface RunTally {
  /** The UTC day the runs started, as ms since the epoch at its midnight. */
  readonly day: number;
  readonly outcome: string;
  readonly stopReason: string;
  /** The guards the runs started with (`run.started`'s `guards`), in order. */
  readonly guards: readonly string[];
  /** The verdict of the shadow checks on the candidate each run stopped on; absent without one. */
  readonly shadow?: string;
  readonly runs: number;
  /** Their spend in dollars, as their seals counted it. */
  readonly costUsd: number;
}

/** The judge's repeated scores, pooled: Σ over candidates scored more than once. */
export interface ScoreSpread {
  /** Candidates (by content hash) scored more than once. */
  readonly candidates: number;
  /** Scores of those candidates. */
  readonly scores: number;
  /** Σ over those candidates of the squared deviations of their scores from the candidate's mean. */
  readonly m2: number;
}

/**
 * What the reports read of a ledger's sealed runs, in one pass: counts by day, outcome, stop reason, guards
 * and shadow verdict, and the spread of repeated scores. The SQL stores answer it with aggregates.
 */
export interface LedgerTally {
  readonly groups: readonly RunTally[];
  readonly spread: ScoreSpread;
}

/** The filter a tally takes: which sealed runs. */
export type TallyFilter = Omit<RunFilter, 'unsealed' | 'runId'>;

/** A page of runs, newest first: see {@link Ledger.runPage}. */
export interface RunPageQuery {
  readonly filter?: RunFilter;
  /** The start time and id of the last run of the previous page. */
  readonly before?: { readonly startedAt: number; readonly runId: string };
  readonly limit: number;
}

/** An attempt the judge scored, as the summary keeps it for the judge's noise. */
export interface AttemptScore {
  readonly seq: number;
  /** The candidate's content hash (the attempt summary's `candidateHash`). */
  readonly candidate: string;
  readonly score: number;
}

/**
 * What the SQL ledgers derive from a sealed run's records as its seal goes in, for the tally
 * (docs/ledger.md, "Derived columns"): never evidence, and checked against the records by `verifyLedger`
 * (`summarizeRun` in run-summary.ts derives it in code).
 */
export interface RunSummary {
  /** `run.started`'s guards; absent when the run is not tallied (not sealed, or record 0 is not `run.started`). */
  readonly guards?: readonly string[];
  /** The seal's shadow verdict. */
  readonly shadow?: string;
  /** The seal's spend in dollars. */
  readonly costUsd?: number;
  /** The tallied run's scored attempts, in `seq` order. */
  readonly scores: readonly AttemptScore[];
}

/** A run's row and its records as stored, read in one snapshot. */
export interface StoredRun {
  readonly run: RunRow;
  readonly records: readonly StoredRecord[];
  /**
   * What the store derived from the records at the seal for the tally, where it keeps it (the SQL stores'
   * streams, asked with `summaries`): `verifyLedger` checks it against the records.
   */
  readonly summary?: RunSummary;
}

/** What a stream over the ledger's history reads. */
export interface StreamOptions {
  readonly filter?: RunFilter;
  /**
   * Runs read per round trip: a stream holds at most this many runs (with their records) at once.
   * @default 256
   */
  readonly pageSize?: number;
  /** Each run with the summary the store derived at its seal, where it keeps one (what `verifyLedger` checks). */
  readonly summaries?: boolean;
}

/** What the `adaptive` rule has learned about one task type (one entry of a {@link PriorsSnapshot}). */
export type TaskPriors = PriorsSnapshot[string];

/**
 * What the `adaptive` rule learns across finished runs, per task type: a small mutable store of its own,
 * apart from the append-only chain (derived state, not evidence; see docs/ledger.md). A ledger keeps it
 * in the same storage as its runs; `StoredPriors` (priors.ts) implements it over any `PriorsStore`.
 */
export interface LearnedPriors {
  /** What the `adaptive` rule has learned about a task type from finished runs; undefined before any. */
  priors(taskType: string): Promise<TaskPriors | undefined>;
  /**
   * Learns from one finished run of a task type: its observed scores at attempts 1, 2, … in order.
   * Atomic: two processes learning at once both count (a locked read-modify-write, not a blind overwrite).
   */
  learn(taskType: string, scores: readonly number[]): Promise<void>;
}

/**
 * Where runs write every event (docs/ledger.md): append-only, hash-chained per run, closed by one seal.
 * Appending to a sealed run fails (the database refuses it, not only this code). The priors the runs
 * taught come with it, as their own port. `ChainedLedger` (chained-ledger.ts) implements it over any
 * `LedgerStore`.
 */
export interface Ledger extends LearnedPriors {
  /** Appends the next record of a run; `seq` must be the run's record count. */
  append(record: LedgerRecord): Promise<StoredRecord>;
  head(runId: string): Promise<LedgerHead>;
  /**
   * The run's records, in `seq` order, each parsed into its type (`parseRunRecord`).
   * @throws {RecordParseError} for a stored record that does not have the shape of its type.
   */
  records(runId: string): Promise<readonly RunRecord[]>;
  /** The run's rows exactly as stored, in `seq` order, for verification and export. */
  stored(runId: string): Promise<readonly StoredRecord[]>;
  /** Runs in start order (then by id). */
  runs(filter?: RunFilter): Promise<readonly RunRow[]>;
  /**
   * A run's row and its records as stored, read in one snapshot, so a record another process appends
   * meanwhile cannot make them disagree (verification reads through this). Undefined for an unknown run.
   * Optional for other implementations: without it, `verifyLedger` reads the row and the records apart.
   */
  storedRun?(runId: string): Promise<StoredRun | undefined>;
  /**
   * Every run matching the filter with its records as stored, in start order (then by id), read lazily in
   * pages of runs under one snapshot where the backend offers it: a run appended while the stream is read
   * is seen whole or not at all, and memory does not grow with the number of runs. Optional for other
   * implementations: without it, `streamHistory` (history.ts) lists the runs and reads each apart.
   */
  streamHistory?(options?: StreamOptions): AsyncIterable<StoredRun>;
  /** The run rows alone, as {@link Ledger.streamHistory} reads them (for the head digest). */
  streamRuns?(options?: StreamOptions): AsyncIterable<RunRow>;
  /**
   * The newest sealed run (in start order, then by id) of a mission with a plan hash, found through an
   * index; undefined when none. The loop asks it before a run starts, to refuse rerunning a plan that
   * thrashed. Optional for other implementations: without it, the loop filters {@link Ledger.runs}.
   */
  latestSealed?(query: { readonly missionId: string; readonly planHash: string }): Promise<RunRow | undefined>;
  /**
   * One page of the runs matching the filter, newest first (by start, then id): at most `limit` runs
   * started before the run `before` names, read through the start-order indexes (never every run).
   * Optional for other implementations: without it, a reader pages {@link Ledger.runs}.
   */
  runPage?(query: RunPageQuery): Promise<readonly RunRow[]>;
  /**
   * The newest record of each named run (its seal once sealed), as stored, in one round trip: what a
   * list of runs shows of their attempts, spend and duration. Unknown runs are left out.
   */
  lastRecords?(runIds: readonly string[]): Promise<readonly StoredRecord[]>;
  /**
   * The sealed runs matching the filter, counted by start day, outcome, stop reason, guards and shadow
   * verdict, with the spread of the judge's repeated scores: what the reports read, as aggregates the
   * store computes. Optional for other implementations: without it, `ledgerTally` (run-tally.ts) streams
   * the history and counts it.
   */
  tally?(filter?: TallyFilter): Promise<LedgerTally>;
  /** Writes rows exported from another ledger, keeping their hashes; the chain must verify. */
  import(run: RunRow, records: readonly StoredRecord[]): Promise<void>;
  close(): Promise<void>;
}
