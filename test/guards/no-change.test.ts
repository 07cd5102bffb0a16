import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evaluatePolicy } from '../../src/guards/guard.js';
import { noChange, runtimeGuards } from '../../src/guards/no-change.js';
import { repeatedOutput } from '../../src/guards/thrash.js';
import { history } from './history.js';

const unchanged = { noChange: true, candidateHash: 'same', progress: false } as const;

describe('noChange', () => {
  test('stops once the last attempts in a row changed nothing, naming the proposer', () => {
    const input = history([{ candidateHash: 'same' }, unchanged, unchanged]);
    assert.deepEqual(noChange(2, 'the agent').evaluate(input), {
      guard: 'noChange(2)',
      reason: 'no_change',
      outcome: 'failed_with_evidence',
      detail: 'the agent changed nothing in 2 attempts in a row',
    });
    assert.equal(noChange().evaluate(input)?.detail, 'the proposer changed nothing in 2 attempts in a row');
  });

  test('does not stop on one, nor on two with a change in between', () => {
    assert.equal(noChange().evaluate(history([{ candidateHash: 'same' }, unchanged])), undefined);
    assert.equal(noChange().evaluate(history([unchanged, {}, unchanged])), undefined);
    assert.equal(noChange(3).evaluate(history([{}, unchanged, unchanged])), undefined);
  });

  test('reads `times` attempts and refuses fewer than one', () => {
    assert.equal(noChange(3).lookback, 3);
    assert.throws(() => noChange(0), { name: 'TypeError', message: 'Expected `times` to be an integer ≥ 1, got 0' });
  });

  test('comes after proposerEnvironment in the runtime guards, so it wins over the budgets and repeatedOutput', () => {
    assert.deepEqual(
      runtimeGuards().map((guard) => guard.name),
      ['proposerEnvironment', 'noChange(2)', 'attemptsBudget()', 'tokensBudget()', 'wallClockBudget()', 'costBudget()'],
    );
    const input = history([{ candidateHash: 'same' }, unchanged, unchanged], { budgets: { maxAttempts: 3 } });
    assert.equal(evaluatePolicy([...runtimeGuards('the agent'), repeatedOutput(3, 2)], input)?.reason, 'no_change');
  });
});
