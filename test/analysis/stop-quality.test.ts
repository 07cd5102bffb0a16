import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { backends, withLedger } from '../ledger/backends.js';
import { JudgeNoise } from '../../src/analysis/judge-noise.js';
import { stopQuality } from '../../src/analysis/stop-quality.js';
import { DAY, DAY_MS, EXPECTED_FIX, recordFixture, rounded } from './shadow-runs.js';

describe('stopQuality', () => {
  for (const backend of backends) {
    it(`reports observed vs true reach per stop reason and per policy, and the judge noise, as worked out by hand (${backend.name})`, () =>
      withLedger(
        () => backend.open(),
        async ({ ledger }) => {
          await recordFixture(ledger);
          assert.deepEqual(rounded(await stopQuality(ledger, { taskType: 'fix' })), rounded(EXPECTED_FIX));
        },
      ));
  }

  it('takes every task type without a filter, and only runs started since a time with one', async () => {
    const ledger = new MemoryLedger();
    await recordFixture(ledger);
    const all = await stopQuality(ledger);
    // R7 ("other", no shadow check) adds a complete run without a verdict, and good7 scored 0.7 and 0.9:
    // (0.0008 + 0.02) / (1 + 1) = 0.0104.
    assert.deepEqual([all.all.runs, all.all.observedReached, all.all.judged], [7, 5, 5]);
    assert.equal(all.noise.noise, Number(Math.sqrt(0.0104).toFixed(4)));
    // R5, R6 and R7 started on days 4, 5 and 6.
    const recent = await stopQuality(ledger, { since: DAY + 4 * DAY_MS });
    assert.deepEqual([recent.all.runs, recent.all.judged, recent.all.trueReached, recent.all.shadowErrors], [3, 1, 1, 1]);
    // Only good7 was scored twice: (0.7 − 0.8)² + (0.9 − 0.8)² = 0.02 over 1 degree of freedom.
    assert.deepEqual(
      rounded(recent.noise),
      rounded({ sigma: Math.sqrt(0.02), candidates: 1, scores: 2, degreesOfFreedom: 1, noise: 0.1414 }),
    );
  });

  it('has no rates and no σ over no runs', async () => {
    const report = await stopQuality(new MemoryLedger());
    assert.deepEqual(report.all, {
      key: 'all',
      runs: 0,
      observedReached: 0,
      observedReach: null,
      judged: 0,
      trueReached: 0,
      trueReach: null,
      falseReached: 0,
      missedReached: 0,
      shadowErrors: 0,
    });
    assert.deepEqual(report.noise, { candidates: 0, scores: 0, degreesOfFreedom: 0 });
  });
});

describe('JudgeNoise', () => {
  it('pools the spread of repeated scores per candidate, ignores candidates scored once, and keeps σ 0 in the guard range', () => {
    const noise = new JudgeNoise();
    noise.add('a', 0.4);
    noise.add('b', 0.7);
    noise.add('b', 0.7);
    assert.deepEqual(noise.estimate(), { sigma: 0, candidates: 1, scores: 2, degreesOfFreedom: 1, noise: 0.000001 });
  });
});
