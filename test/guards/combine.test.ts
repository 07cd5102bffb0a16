import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allOf, anyOf, not } from '../../src/guards/combine.js';
import type { Guard, StopVerdict } from '../../src/guards/guard.js';
import { history } from './history.js';

/** A guard that always (or never) stops, with the given lookback. */
function fixed(name: string, stops: boolean, lookback = 1): Guard {
  const verdict: StopVerdict = { guard: name, reason: `${name}_reason`, detail: `${name} fired`, outcome: 'failed_with_evidence' };
  return { name, lookback, evaluate: () => (stops ? verdict : undefined) };
}

const input = history([{}]);

describe('anyOf', () => {
  test('returns the first stop, in order, naming the guard that produced it', () => {
    const guard = anyOf(fixed('a', false), fixed('b', true), fixed('c', true));
    assert.equal(guard.name, 'anyOf(a, b, c)');
    assert.deepEqual(guard.evaluate(input), { guard: 'b', reason: 'b_reason', detail: 'b fired', outcome: 'failed_with_evidence' });
  });

  test('does not stop when no guard stops', () => {
    assert.equal(anyOf(fixed('a', false), fixed('b', false)).evaluate(input), undefined);
  });

  test('reads the largest lookback of its guards', () => {
    assert.equal(anyOf(fixed('a', false, 2), fixed('b', false, 7), fixed('c', false, 0)).lookback, 7);
  });

  test('needs at least one guard', () => {
    assert.throws(() => anyOf(), { name: 'TypeError', message: 'Expected anyOf to get at least one guard, got none' });
    assert.throws(() => anyOf({} as Guard), { name: 'TypeError', message: 'Expected anyOf to get guards, got an object' });
  });
});

describe('allOf', () => {
  test('stops only when every guard stops, with the first reason and outcome and every detail', () => {
    const first: Guard = {
      name: 'first',
      lookback: 1,
      evaluate: () => ({ guard: 'first', reason: 'r1', detail: 'd1', outcome: 'complete' }),
    };
    const guard = allOf(first, fixed('b', true, 4));
    assert.deepEqual(guard.evaluate(input), {
      guard: 'allOf(first, b)',
      reason: 'r1',
      outcome: 'complete',
      detail: 'first: d1; b: b fired',
    });
    assert.equal(guard.lookback, 4);
  });

  test('does not stop when one guard does not stop', () => {
    assert.equal(allOf(fixed('a', true), fixed('b', false)).evaluate(input), undefined);
    assert.equal(allOf(fixed('a', false), fixed('b', true)).evaluate(input), undefined);
  });

  test('needs at least one guard', () => {
    assert.throws(() => allOf(), TypeError);
  });
});

describe('not', () => {
  test('stops with the given verdict when the inner guard does not stop', () => {
    const guard = not(fixed('a', false, 3), { reason: 'never_fired', outcome: 'blocked' });
    assert.equal(guard.lookback, 3);
    assert.deepEqual(guard.evaluate(input), { guard: 'not(a)', reason: 'never_fired', outcome: 'blocked', detail: 'a did not stop' });
  });

  test('uses a given detail', () => {
    const guard = not(fixed('a', false), { reason: 'x', outcome: 'blocked', detail: 'custom' });
    assert.equal(guard.evaluate(input)?.detail, 'custom');
  });

  test('does not stop when the inner guard stops', () => {
    assert.equal(not(fixed('a', true), { reason: 'x', outcome: 'blocked' }).evaluate(input), undefined);
  });

  test('rejects a bad verdict', () => {
    assert.throws(() => not(fixed('a', true), { reason: '', outcome: 'blocked' }), {
      name: 'TypeError',
      message: 'Expected `reason` to be a non-empty string, got ""',
    });
    assert.throws(() => not(fixed('a', true), { reason: 'x', outcome: 'done' as 'blocked' }), {
      name: 'TypeError',
      message: 'Expected `outcome` to be one of complete, complete_noop, blocked, failed_with_evidence, got "done"',
    });
  });
});

describe('nesting', () => {
  test('combinators compose and keep naming the producing guard', () => {
    const guard = anyOf(allOf(fixed('a', true), fixed('b', true)), fixed('c', true));
    assert.equal(guard.name, 'anyOf(allOf(a, b), c)');
    assert.equal(guard.evaluate(input)?.guard, 'allOf(a, b)');
  });
});
