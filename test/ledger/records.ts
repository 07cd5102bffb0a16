import type { Ledger, LedgerRecord, RunRow, StoredRecord } from '../../src/ledger/ledger.js';

/** The seal fields every {@link story} ends with, as its run row carries them. */
export const SEAL = { outcome: 'complete', verification: 'verified', stopReason: 'demand_passed' } as const;

/** The record types a {@link story} is made of. */
export type StoryType = 'run.started' | 'attempt' | 'decision' | 'run.sealed';

export interface RecordOptions {
  /** @default 1_000 + seq */
  readonly at?: number;
  /** The mission's task type, for `run.started`. @default 'default' */
  readonly taskType?: string;
}

/**
 * Record `seq` of a run with plausible data for its type. Attempts carry text outside ASCII, a float and
 * nested keys out of order, so a body only round-trips if it is stored exactly.
 */
export function recordOf(
  runId: string,
  seq: number,
  type: StoryType,
  { at = 1_000 + seq, taskType = 'default' }: RecordOptions = {},
): LedgerRecord {
  const data: Record<StoryType, Record<string, unknown>> = {
    'run.started': { mission: { taskType, id: 'contract' } },
    attempt: { attempt: seq, value: 'naïve “quotes” ✓ 🧪', score: 0.1 + 0.2, nested: { z: [1, { b: true, a: null }], a: 'x' } },
    decision: { attempt: seq - 1, decision: { transition: 'retry', reason: 'demand_failed' } },
    'run.sealed': { ...SEAL, detail: 'the value matches' },
  };
  return { runId, seq, type, at, data: data[type] };
}

export interface StoryOptions {
  /** When `run.started` happens; each later record is 1 ms later. @default 1_000 */
  readonly at?: number;
  /** @default 'default' */
  readonly taskType?: string;
  /** Records between `run.started` and the seal: attempt, decision, attempt, … @default 2 */
  readonly steps?: number;
  /** End with `run.sealed`. @default true */
  readonly sealed?: boolean;
}

/** The records of a plausible run: `run.started`, alternating attempts and decisions, and (by default) the seal. */
export function story(runId: string, { at = 1_000, taskType = 'default', steps = 2, sealed = true }: StoryOptions = {}): LedgerRecord[] {
  const types: StoryType[] = [
    'run.started',
    ...Array.from({ length: steps }, (_, step): StoryType => (step % 2 === 0 ? 'attempt' : 'decision')),
    ...(sealed ? ['run.sealed' as const] : []),
  ];
  return types.map((type, seq) => recordOf(runId, seq, type, { at: at + seq, taskType }));
}

/** Appends records one after another, returning them as stored. */
export async function appendAll(ledger: Ledger, records: readonly LedgerRecord[]): Promise<StoredRecord[]> {
  const stored: StoredRecord[] = [];
  for (const record of records) stored.push(await ledger.append(record));
  return stored;
}

/** What an export holds for one run: its row and its records exactly as stored. */
export interface ExportedRun {
  readonly run: RunRow;
  readonly records: readonly StoredRecord[];
}

/** Every run of a ledger as `runs()` and `stored()` give them. */
export async function exportAll(ledger: Ledger): Promise<ExportedRun[]> {
  return Promise.all((await ledger.runs()).map(async (run) => ({ run, records: await ledger.stored(run.runId) })));
}

/** The scores of the `index`-th run a concurrent learner teaches the priors: three attempts, a gain that varies by run. */
export function learnedRun(index: number): number[] {
  const gain = (index % 10) / 100;
  return [0.1, 0.1 + gain, 0.1 + 2 * gain];
}
