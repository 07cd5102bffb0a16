import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Guard } from '../../src/guards/guard.js';
import { confirm, smooth, threshold } from '../../src/guards/score.js';
import { scored } from './history.js';

/** The 1-based attempt at which `guard` first stops on `scores`, or `Infinity` if it never does. */
function firstStop(guard: Guard, scores: readonly (number | undefined)[]): number {
  for (let attempt = 1; attempt <= scores.length; attempt++) {
    if (guard.evaluate(scored(...scores.slice(0, attempt))) !== undefined) return attempt;
  }
  return Infinity;
}

const score = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined });
const scores = fc.array(score, { maxLength: 12 });
const bar = fc.double({ min: 0, max: 1, noNaN: true });

test('confirm(2, bar) never stops before threshold(bar) on the same scores', () => {
  fc.assert(
    fc.property(scores, bar, (sequence, value) => {
      assert.ok(firstStop(confirm(2, value), sequence) >= firstStop(threshold(value), sequence));
    }),
  );
});

test('whenever confirm(k, bar) stops, threshold(bar) and smooth(k, bar) stop too', () => {
  fc.assert(
    fc.property(scores, bar, fc.integer({ min: 1, max: 4 }), (sequence, value, k) => {
      const input = scored(...sequence);
      if (confirm(k, value).evaluate(input) === undefined) return;
      assert.notEqual(threshold(value).evaluate(input), undefined);
      assert.notEqual(smooth(k, value).evaluate(input), undefined);
    }),
  );
});
