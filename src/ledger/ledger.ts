/** Kinds of record a run writes, in the order they happen. */
export type RecordType = 'run.started' | 'baseline' | 'attempt' | 'decision' | 'run.sealed';

/** One event of a run as stored. `seq` starts at 0 for `run.started`; the seal is the last. */
export interface LedgerRecord {
  readonly runId: string;
  readonly seq: number;
  readonly type: RecordType;
  /** Milliseconds since the epoch, by the run's clock. */
  readonly at: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The newest record of a run, to prove retained records agree with the working state. */
export interface LedgerHead {
  readonly count: number;
  readonly sealed: boolean;
}

/**
 * Where runs write every event (SPEC §6). Appending to a sealed run fails; a run is sealed once.
 */
export interface Ledger {
  append(record: LedgerRecord): Promise<void>;
  head(runId: string): Promise<LedgerHead>;
  records(runId: string): Promise<readonly LedgerRecord[]>;
  runs(): Promise<readonly string[]>;
  close(): Promise<void>;
}
