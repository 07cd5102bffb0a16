import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runTrends } from '../../src/analysis/run-trends.js';
import type { RunTally } from '../../src/ledger/ledger.js';

const DAY = 86_400_000;
/** A Wednesday. */
const WED = Date.parse('2026-11-04T00:00:00Z');

const group = (day: number, outcome: string, stopReason: string, runs: number, costUsd = 0): RunTally => ({
  day,
  outcome,
  stopReason,
  guards: [],
  runs,
  costUsd,
});

describe('runTrends', () => {
  it('counts by day over a short span, every day from the first to the last, days without runs as zeros', () => {
    const trends = runTrends([
      group(WED, 'complete', 'demand_passed', 2, 0.5),
      group(WED, 'blocked', 'approval_missing', 1),
      group(WED + 2 * DAY, 'complete', 'demand_passed', 1, 0.25),
    ]);
    assert.equal(trends.period, 'day');
    assert.deepEqual(
      trends.rows.map(({ start, runs, costUsd }) => [start, runs, costUsd]),
      [
        [WED, 3, 0.5],
        [WED + DAY, 0, 0],
        [WED + 2 * DAY, 1, 0.25],
      ],
    );
    assert.deepEqual(
      [...(trends.rows[0]?.outcomes ?? [])],
      [
        ['complete', 2],
        ['blocked', 1],
      ],
    );
    assert.deepEqual(trends.stopReasons, ['demand_passed', 'approval_missing']);
  });

  it('counts by week, Monday to Sunday (UTC), once the runs span more than 62 days', () => {
    const trends = runTrends([
      group(WED, 'complete', 'b', 1),
      group(WED + 4 * DAY, 'complete', 'a', 1),
      group(WED + 70 * DAY, 'blocked', 'b', 2),
    ]);
    assert.equal(trends.period, 'week');
    const monday = WED - 2 * DAY;
    assert.equal(new Date(monday).getUTCDay(), 1);
    // The Wednesday and the Sunday after it fall in one week; eleven weeks in all.
    assert.equal(trends.rows[0]?.start, monday);
    assert.equal(trends.rows[0]?.runs, 2);
    assert.equal(trends.rows.length, 11);
    assert.equal(trends.rows.at(-1)?.start, monday + 70 * DAY);
    // Most runs first, then by name.
    assert.deepEqual(trends.stopReasons, ['b', 'a']);
  });

  it('lists only the weeks with runs when the runs span more than 1,000 weeks (a run clock far off)', () => {
    const trends = runTrends([group(WED, 'complete', 'a', 1), group(WED + 1_050_000 * DAY, 'complete', 'a', 1)]);
    assert.deepEqual(
      trends.rows.map(({ start, runs }) => [start, runs]),
      [
        [WED - 2 * DAY, 1],
        [WED - 2 * DAY + 1_050_000 * DAY, 1],
      ],
    );
  });

  it('has no rows without runs', () => {
    assert.deepEqual(runTrends([]), { period: 'day', rows: [], stopReasons: [] });
  });
});
