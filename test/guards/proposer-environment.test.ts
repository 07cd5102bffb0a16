import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evaluatePolicy } from '../../src/guards/guard.js';
import { runtimeGuards } from '../../src/guards/no-change.js';
import { proposerEnvironment } from '../../src/guards/proposer-environment.js';
import { history } from './history.js';

describe('proposerEnvironment', () => {
  test('blocks the run (environment) after an attempt whose proposer failed on its environment, naming the attempt', () => {
    const input = history([{}, { environment: true }]);
    assert.deepEqual(proposerEnvironment('the agent').evaluate(input), {
      guard: 'proposerEnvironment',
      reason: 'environment',
      outcome: 'blocked',
      detail:
        "the agent failed on its environment at attempt 2 (proposer.environment: see the attempt's finding): every attempt would fail the same way until it is repaired",
    });
  });

  test('reads only the last attempt: an earlier failure that healed does not stop the run', () => {
    assert.equal(proposerEnvironment().evaluate(history([{ environment: true }, {}])), undefined);
    assert.equal(proposerEnvironment().lookback, 1);
  });

  test('comes first in the runtime guards: it wins over an attempt budget spent at the same attempt', () => {
    const input = history([{ environment: true }], { budgets: { maxAttempts: 1 } });
    assert.equal(evaluatePolicy(runtimeGuards('the agent'), input)?.reason, 'environment');
  });
});
