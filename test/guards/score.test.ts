import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { confirm, margin, plateau, smooth, threshold } from '../../src/guards/score.js';
import { history, scored } from './history.js';

describe('threshold', () => {
  test('stops with complete when the last score reaches the bar', () => {
    assert.deepEqual(threshold(0.8).evaluate(scored(0.5, 0.8)), {
      guard: 'threshold(0.8)',
      reason: 'threshold',
      outcome: 'complete',
      detail: 'score 0.8 ≥ bar 0.8',
    });
  });

  test('does not stop below the bar, without a score, or without attempts', () => {
    const guard = threshold(0.8);
    assert.equal(guard.evaluate(scored(0.9, 0.79)), undefined);
    assert.equal(guard.evaluate(scored(0.9, undefined)), undefined);
    assert.equal(guard.evaluate(history()), undefined);
  });

  test('reads one attempt', () => {
    assert.equal(threshold(0.8).lookback, 1);
  });

  test('rejects a bar outside [0, 1]', () => {
    assert.throws(() => threshold(1.5), { name: 'TypeError', message: 'Expected `bar` to be a number in [0, 1], got 1.5' });
    assert.throws(() => threshold(Number.NaN), TypeError);
  });
});

describe('confirm', () => {
  test('stops when the last k attempts all reach the bar', () => {
    const verdict = confirm(2, 0.8).evaluate(scored(0.3, 0.85, 0.8));
    assert.equal(verdict?.guard, 'confirm(2, 0.8)');
    assert.equal(verdict?.reason, 'confirm');
    assert.equal(verdict?.outcome, 'complete');
    assert.equal(verdict?.detail, 'last 2 scores 0.85, 0.8 all ≥ bar 0.8');
  });

  test('does not stop with fewer than k scores', () => {
    assert.equal(confirm(2, 0.8).evaluate(scored(0.9)), undefined);
    assert.equal(confirm(3, 0.8).evaluate(scored(0.9, 0.9)), undefined);
  });

  test('does not stop when one of the last k is below the bar', () => {
    assert.equal(confirm(2, 0.8).evaluate(scored(0.9, 0.7, 0.9)), undefined);
  });

  test('an attempt without a score breaks the run', () => {
    assert.equal(confirm(2, 0.8).evaluate(scored(0.9, undefined, 0.9)), undefined);
    assert.equal(confirm(2, 0.8).evaluate(scored(0.9, 0.9, undefined)), undefined);
  });

  test('confirm(1, bar) stops where threshold(bar) does', () => {
    assert.equal(confirm(1, 0.8).evaluate(scored(0.8))?.reason, 'confirm');
  });

  test('reads k attempts and rejects a bad k', () => {
    assert.equal(confirm(3, 0.8).lookback, 3);
    assert.throws(() => confirm(0, 0.8), { name: 'TypeError', message: 'Expected `k` to be an integer ≥ 1, got 0' });
    assert.throws(() => confirm(1.5, 0.8), TypeError);
  });
});

describe('smooth', () => {
  test('stops when the mean of the last k scores reaches the bar', () => {
    const verdict = smooth(2, 0.8).evaluate(scored(0.2, 0.75, 0.85));
    assert.equal(verdict?.reason, 'smooth');
    assert.equal(verdict?.outcome, 'complete');
    assert.equal(verdict?.detail, 'mean 0.8 of the last 2 scores ≥ bar 0.8');
  });

  test('does not stop when the mean is below the bar', () => {
    assert.equal(smooth(2, 0.8).evaluate(scored(0.7, 0.85)), undefined);
  });

  test('needs k consecutive scores', () => {
    assert.equal(smooth(2, 0.8).evaluate(scored(0.95)), undefined);
    assert.equal(smooth(2, 0.8).evaluate(scored(0.95, undefined, 0.95)), undefined);
  });

  test('reads k attempts', () => {
    assert.equal(smooth(4, 0.8).lookback, 4);
  });
});

describe('margin', () => {
  test('stops when the last score reaches bar + m', () => {
    const verdict = margin(0.05, 0.8).evaluate(scored(0.85));
    assert.deepEqual(verdict, {
      guard: 'margin(0.05, 0.8)',
      reason: 'margin',
      outcome: 'complete',
      detail: 'score 0.85 ≥ bar 0.8 + margin 0.05',
    });
  });

  test('does not stop between the bar and bar + m', () => {
    assert.equal(margin(0.05, 0.8).evaluate(scored(0.84)), undefined);
  });

  test('rejects a negative margin', () => {
    assert.throws(() => margin(-0.1, 0.8), { name: 'TypeError', message: 'Expected `m` to be a number in [0, 1], got -0.1' });
  });
});

describe('plateau', () => {
  test('stops with failed_with_evidence when the last n scores lie within delta', () => {
    const verdict = plateau(0.02, 3).evaluate(scored(0.3, 0.61, 0.62, 0.6));
    assert.equal(verdict?.guard, 'plateau(0.02, 3)');
    assert.equal(verdict?.reason, 'plateau');
    assert.equal(verdict?.outcome, 'failed_with_evidence');
    assert.match(verdict?.detail ?? '', /0\.61, 0\.62, 0\.6 within 0\.02/);
  });

  test('does not stop while the scores still move', () => {
    assert.equal(plateau(0.02, 3).evaluate(scored(0.5, 0.6, 0.61)), undefined);
  });

  test('needs n scored attempts', () => {
    assert.equal(plateau(0.02, 3).evaluate(scored(0.6, 0.6)), undefined);
    assert.equal(plateau(0.02, 3).evaluate(scored(0.6, undefined, 0.6, 0.6)), undefined);
  });

  test('reads n attempts and needs n ≥ 2', () => {
    assert.equal(plateau(0.01, 4).lookback, 4);
    assert.throws(() => plateau(0.01, 1), { name: 'TypeError', message: 'Expected `n` to be an integer ≥ 2, got 1' });
  });
});
