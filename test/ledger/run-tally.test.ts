import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Ledger, LedgerTally, RunTally } from '../../src/ledger/ledger.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { ledgerTally, tallyRuns } from '../../src/ledger/run-tally.js';
import { streamHistory } from '../../src/ledger/history.js';
import { backends, withLedger } from './backends.js';
import { appendRuns, DAY, DAY_0_RUNS, HOSTILE, rounded, STILL_RUNNING, T0, type TallyRun } from './tally-runs.js';

// The tally the reports read: the SQL stores' aggregates must count exactly what reading every record
// counts, on runs as the loop records them (guards, shadow verdicts, spend, repeated scores).

/** Records runs an hour into their day: the tally counts each on the day it started. */
const record = (ledger: Ledger, ...runs: TallyRun[]): Promise<void> => appendRuns(ledger, runs, { offsetMs: 3_600_000 });

const RUNS: readonly TallyRun[] = [
  ...DAY_0_RUNS,
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
  STILL_RUNNING,
];

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
          await record(ledger, ...RUNS);
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
    await record(memory, ...RUNS);
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
