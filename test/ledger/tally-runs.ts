import type { Ledger, LedgerRecord, LedgerTally } from '../../src/ledger/ledger.js';

// Runs as the loop records them, for the tally the reports read and the summaries a SQL ledger derives at
// the seal (test/ledger/run-tally.test.ts, test/ledger/run-summary.test.ts).

export const DAY = 86_400_000;
export const T0 = Date.parse('2026-11-02T00:00:00Z');
/** Markup, a quote, a right-to-left override and a zero-width space: text a ledger may hold. */
export const HOSTILE = `x <b>"'</b> \u202eevil\u202c \u200b`;

const counters = (costUsd: number) => ({
  attempts: 1,
  inputTokens: 10,
  outputTokens: 5,
  costUsd,
  elapsedMs: 1_000,
  sinceProgress: 0,
  failedRounds: 0,
});

export interface RunSeal {
  readonly outcome: string;
  readonly stopReason: string;
  /** The run's spend; a seal without counters when absent. */
  readonly costUsd?: number;
  readonly shadow?: 'pass' | 'fail' | 'error';
}

export interface TallyRun {
  readonly runId: string;
  /** Days after {@link T0} the run starts. */
  readonly day: number;
  /** @default 'fix' */
  readonly taskType?: string;
  /** @default 'm' */
  readonly missionId?: string;
  /** The guards `run.started` names; the record has none when absent. */
  readonly guards?: readonly string[];
  /** One attempt each: its candidate and its score (none when undefined). */
  readonly scores?: readonly (readonly [string, number | undefined])[];
  /** Left running when absent. */
  readonly seal?: RunSeal;
}

/** Day 0: two runs alike (one group of the tally), and one blocked with a hostile mission, stop reason and guard name. */
export const DAY_0_RUNS: readonly TallyRun[] = [
  {
    runId: 'a',
    day: 0,
    guards: ['budget', 'threshold'],
    scores: [
      ['c1', 0.4],
      ['c2', 0.8],
    ],
    seal: { outcome: 'complete', stopReason: 'threshold', costUsd: 0.25, shadow: 'pass' },
  },
  {
    runId: 'b',
    day: 0,
    guards: ['budget', 'threshold'],
    scores: [['c1', 0.6]],
    seal: { outcome: 'complete', stopReason: 'threshold', costUsd: 0.5, shadow: 'pass' },
  },
  { runId: 'c', day: 0, missionId: HOSTILE, guards: [HOSTILE], seal: { outcome: 'blocked', stopReason: HOSTILE, costUsd: 0 } },
];

/** A run still going on day 9: without a seal, it counts in no tally. */
export const STILL_RUNNING: TallyRun = { runId: 'f', day: 9, scores: [['c1', 0.2]] };

/** The data of a `run.sealed` record. */
export const sealData = ({ outcome, stopReason, costUsd, shadow }: RunSeal) => ({
  outcome,
  verification: 'verified',
  stopReason,
  ...(costUsd === undefined ? {} : { counters: counters(costUsd) }),
  ...(shadow === undefined ? {} : { shadow: { verdict: shadow, findings: [] } }),
});

const attemptData = (attempt: number, candidateHash: string, score: number | undefined) => ({
  attempt,
  summary: {
    attempt,
    candidateHash,
    signature: `s${attempt}`,
    rejection: '',
    ...(score === undefined ? {} : { score }),
    failing: 0,
    failed: false,
    infraError: false,
    progress: true,
  },
  counters: counters(0),
});

export interface RunTimes {
  /** How long into its day a run starts; each record is 1 ms after the one before. @default 0 */
  readonly offsetMs?: number;
}

/** The records of `run`: `run.started`, its attempts, and its seal when it has one. */
export function runRecords(run: TallyRun, { offsetMs = 0 }: RunTimes = {}): LedgerRecord[] {
  const steps = [
    {
      type: 'run.started',
      data: {
        mission: { id: run.missionId ?? 'm', taskType: run.taskType ?? 'fix' },
        ...(run.guards === undefined ? {} : { guards: run.guards }),
      },
    },
    ...(run.scores ?? []).map(([hash, score], index) => ({ type: 'attempt', data: attemptData(index + 1, hash, score) })),
    ...(run.seal === undefined ? [] : [{ type: 'run.sealed', data: sealData(run.seal) }]),
  ];
  const at = T0 + run.day * DAY + offsetMs;
  return steps.map(({ type, data }, seq) => ({ runId: run.runId, seq, type, at: at + seq, data }) as LedgerRecord);
}

/** Appends the records of `runs`, one run after another. */
export async function appendRuns(ledger: Ledger, runs: readonly TallyRun[], times: RunTimes = {}): Promise<void> {
  for (const run of runs) for (const record of runRecords(run, times)) await ledger.append(record);
}

/**
 * A tally as two stores compare: sums to 9 places (each store sums in its own order) and the groups in one
 * order, by what groups them.
 */
export const rounded = ({ groups, spread }: LedgerTally) => ({
  groups: groups
    .map((group) => ({ ...group, costUsd: Number(group.costUsd.toFixed(9)) }))
    .sort((x, y) =>
      JSON.stringify([x.day, x.outcome, x.stopReason, x.guards, x.shadow]).localeCompare(
        JSON.stringify([y.day, y.outcome, y.stopReason, y.guards, y.shadow]),
      ),
    ),
  spread: { ...spread, m2: Number(spread.m2.toFixed(9)) },
});
