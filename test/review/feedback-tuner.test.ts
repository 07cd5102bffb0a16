import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { limitChange, tuneLimit, tuner, TUNER } from '../../src/review/feedback-tuner.js';

const verdicts = (approved: number, total = 10): boolean[] => Array.from({ length: total }, (_, n) => n < approved);

describe('feedback tuner', () => {
  it('starts at 5, bounded to [3, 15], over the last 10 verdicts; refuses impossible settings', () => {
    assert.deepEqual(tuner(), { initial: 5, window: 10, min: 3, max: 15, raiseAbove: 0.8, lowerBelow: 0.4 });
    assert.deepEqual(tuner(), TUNER);
    assert.throws(() => tuner({ min: 9, max: 4, initial: 5 }), { name: 'TypeError', message: 'Expected tuner.min ≤ tuner.max, got 9 > 4' });
    assert.throws(() => tuner({ initial: 20 }), { name: 'TypeError', message: 'Expected tuner.initial within [3, 15], got 20' });
    assert.throws(() => tuner({ window: 0 }), /Expected tuner.window to be a positive integer, got 0/);
    assert.throws(() => tuner({ lowerBelow: 0.9 }), /Expected 0 ≤ tuner.lowerBelow ≤ tuner.raiseAbove ≤ 1/);
  });

  it('raises above 80%, lowers below 40%, holds from 40% to 80% inclusive', () => {
    const limits = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0].map((approved) => tuneLimit({ limit: 5, verdicts: verdicts(approved) }));
    assert.deepEqual(limits, [6, 6, 5, 5, 5, 5, 5, 4, 4, 4, 4]);
  });

  it('holds until the window is full, then looks only at the last 10', () => {
    assert.equal(tuneLimit({ limit: 5, verdicts: verdicts(9, 9) }), 5);
    assert.equal(tuneLimit({ limit: 5, verdicts: [false, false, false, ...Array(10).fill(true)] }), 6);
  });

  it('never leaves its bounds and moves by at most one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 15 }), fc.array(fc.boolean(), { maxLength: 30 }), (limit, history) => {
        const next = tuneLimit({ limit, verdicts: history });
        assert.ok(next >= 3 && next <= 15 && Math.abs(next - limit) <= 1);
        if (history.length < 10) assert.equal(next, limit);
      }),
    );
    assert.equal(tuneLimit({ limit: 15, verdicts: verdicts(10) }), 15);
    assert.equal(tuneLimit({ limit: 3, verdicts: verdicts(0) }), 3);
  });

  it('reports a change with its approve rate and the window’s verdicts, and nothing when the limit holds', () => {
    const window = Array.from({ length: 12 }, (_, n) => ({ id: `v${n}`, decision: n < 3 ? ('reject' as const) : ('approve' as const) }));
    // The last ten: v2 rejected, v3 … v11 approved: 90%.
    assert.deepEqual(limitChange({ limit: 5, window, at: 42 }), {
      from: 5,
      to: 6,
      approveRate: 0.9,
      verdictIds: window.slice(2).map((verdict) => verdict.id),
      at: 42,
    });
    assert.equal(limitChange({ limit: 15, window, at: 42 }), undefined);
    assert.equal(limitChange({ limit: 5, window: window.slice(0, 9), at: 42 }), undefined);
    assert.deepEqual(limitChange({ limit: 5, window: window.slice(0, 4), policy: tuner({ window: 4 }), at: 1 })?.to, 4);
  });
});
