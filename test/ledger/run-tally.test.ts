import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Ledger, LedgerTally, RunTally } from '../../src/ledger/ledger.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { ledgerTally, tallyRuns } from '../../src/ledger/run-tally.js';
import { streamHistory } from '../../src/ledger/history.js';
import { backends, withLedger } from './backends.js';

// The tally the reports read: the SQL stores' aggregates must count exactly what reading every record
// counts, on runs as the loop records them (guards, shadow verdicts, spend, repeated scores).

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-02T00:00:00Z');
/** Markup, a quote, a right-to-left override and a zero-width space: text a ledger may hold. */
const HOSTILE = `x <b>"'</b> \u202eevil\u202c \u200b`;

const counters = (costUsd: number) => ({
  attempts: 1,
  inputTokens: 10,
  outputTokens: 5,
  costUsd,
  elapsedMs: 1_000,
  sinceProgress: 0,
  failedRounds: 0,
});

const summary = (attempt: number, candidateHash: string, score?: number) => ({
  attempt,
  candidateHash,
  signature: `s${attempt}`,
  rejection: '',
  ...(score === undefined ? {} : { score }),
  failing: 0,
  failed: false,
  infraError: false,
  progress: true,
});

interface Run {
  readonly runId: string;
  readonly day: number;
  readonly taskType?: string;
  readonly missionId?: string;
  readonly guards?: readonly string[];
  /** Scores by candidate, one attempt each. */
  readonly scores?: readonly (readonly [string, number | undefined])[];
  /** Left running when absent. */
  readonly seal?: { outcome: string; stopReason: string; costUsd: number; shadow?: 'pass' | 'fail' | 'error' };
}

async function record(ledger: Ledger, run: Run): Promise<void> {
  const at = T0 + run.day * DAY + 3_600_000;
  const data = [
    {
      type: 'run.started',
      data: {
        mission: { id: run.missionId ?? 'm', taskType: run.taskType ?? 'fix' },
        ...(run.guards === undefined ? {} : { guards: run.guards }),
      },
    },
    ...(run.scores ?? []).map(([hash, score], index) => ({
      type: 'attempt',
      data: { attempt: index + 1, summary: summary(index + 1, hash, score), counters: counters(0) },
    })),
    ...(run.seal === undefined
      ? []
      : [
          {
            type: 'run.sealed',
            data: {
              outcome: run.seal.outcome,
              verification: 'verified',
              stopReason: run.seal.stopReason,
              counters: counters(run.seal.costUsd),
              ...(run.seal.shadow === undefined ? {} : { shadow: { verdict: run.seal.shadow, findings: [] } }),
            },
          },
        ]),
  ];
  for (const [seq, { type, data: body }] of data.entries())
    await ledger.append({ runId: run.runId, seq, type: type as 'attempt', at: at + seq, data: body });
}

const RUNS: readonly Run[] = [
  // Day 0: two alike (one group), one blocked with a hostile stop reason and guard name.
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
  // Day 3: integer scores (1 and 0 of one candidate: their spread must not be rounded away), no guards named.
  {
    runId: 'd',
    day: 3,
    taskType: 'docs',
    scores: [
      ['c3', 1],
      ['c3', 0],
      ['c4', undefined],
    ],
    seal: { outcome: 'failed_with_evidence', stopReason: 'budget_attempts', costUsd: 1, shadow: 'fail' },
  },
  // Day 9: a shadow that errored; and a run still going, which counts nowhere.
  {
    runId: 'e',
    day: 9,
    guards: ['confirm'],
    seal: { outcome: 'complete_noop', stopReason: 'baseline_passed', costUsd: 0.125, shadow: 'error' },
  },
  { runId: 'f', day: 9, scores: [['c1', 0.2]] },
];

const order = (groups: readonly RunTally[]): RunTally[] =>
  [...groups].sort((x, y) =>
    JSON.stringify([x.day, x.stopReason, x.guards]).localeCompare(JSON.stringify([y.day, y.stopReason, y.guards])),
  );
const rounded = ({ groups, spread }: LedgerTally) => ({
  groups: order(groups).map((group) => ({ ...group, costUsd: Number(group.costUsd.toFixed(9)) })),
  spread: { ...spread, m2: Number(spread.m2.toFixed(9)) },
});

const EXPECTED: LedgerTally = {
  groups: [
    { day: T0, outcome: 'complete', stopReason: 'threshold', guards: ['budget', 'threshold'], shadow: 'pass', runs: 2, costUsd: 0.75 },
    { day: T0, outcome: 'blocked', stopReason: HOSTILE, guards: [HOSTILE], runs: 1, costUsd: 0 },
    { day: T0 + 3 * DAY, outcome: 'failed_with_evidence', stopReason: 'budget_attempts', guards: [], shadow: 'fail', runs: 1, costUsd: 1 },
    {
      day: T0 + 9 * DAY,
      outcome: 'complete_noop',
      stopReason: 'baseline_passed',
      guards: ['confirm'],
      shadow: 'error',
      runs: 1,
      costUsd: 0.125,
    },
  ],
  // c1 scored 0.4 and 0.6 (0.02), c3 scored 1 and 0 (0.5); c2 and c4 once or not at all; run f is not sealed.
  spread: { candidates: 2, scores: 4, m2: 0.52 },
};

describe('the ledger tally', () => {
  for (const backend of backends)
    it(`counts sealed runs by day, outcome, stop reason, guards and shadow verdict, and pools repeated scores (${backend.name})`, () =>
      withLedger(
        () => backend.open(),
        async ({ ledger }) => {
          for (const run of RUNS) await record(ledger, run);
          const tally = await ledgerTally(ledger);
          assert.deepEqual(rounded(tally), rounded(EXPECTED));
          // The same as reading every record.
          assert.deepEqual(rounded(tally), rounded(await tallyRuns(streamHistory(ledger))));
          const docs = await ledgerTally(ledger, { taskType: 'docs' });
          assert.deepEqual(
            rounded(docs),
            rounded({ groups: [EXPECTED.groups[2] as RunTally], spread: { candidates: 1, scores: 2, m2: 0.5 } }),
          );
          const since = await ledgerTally(ledger, { since: T0 + DAY, until: T0 + 4 * DAY });
          assert.deepEqual(
            since.groups.map(({ stopReason }) => stopReason),
            ['budget_attempts'],
          );
          const hostile = await ledgerTally(ledger, { missionId: HOSTILE });
          assert.deepEqual(
            hostile.groups.map(({ guards }) => guards),
            [[HOSTILE]],
          );
          assert.deepEqual(await ledgerTally(ledger, { missionId: 'nobody' }), { groups: [], spread: { candidates: 0, scores: 0, m2: 0 } });
          // A tally read again after a run is sealed counts it (a kept tally holds only while the count does).
          await record(ledger, {
            runId: 'g',
            day: 0,
            guards: ['confirm'],
            seal: { outcome: 'blocked', stopReason: 'approval_missing', costUsd: 0 },
          });
          const again = await ledgerTally(ledger);
          assert.equal(
            again.groups.reduce((sum, { runs }) => sum + runs, 0),
            6,
          );
          assert.deepEqual(rounded(await ledgerTally(ledger, { taskType: 'docs' })), rounded(docs));
        },
      ));

  it('streams and counts the history of a ledger without its own tally', async () => {
    const memory = new MemoryLedger();
    for (const run of RUNS) await record(memory, run);
    // Another implementation of the port: every method but `tally`.
    const bare = new Proxy(memory, {
      get: (target, key) => {
        const value: unknown = Reflect.get(target, key, target);
        return key === 'tally' ? undefined : typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    assert.equal(bare.tally, undefined);
    assert.deepEqual(rounded(await ledgerTally(bare)), rounded(EXPECTED));
  });
});
