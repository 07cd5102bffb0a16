import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { attemptsBudget, budgets, costBudget, tokensBudget, wallClockBudget } from '../../src/guards/budget.js';
import { history } from './history.js';

describe('attemptsBudget', () => {
  test('stops with failed_with_evidence once the attempts are used up', () => {
    const input = history([], { counters: { attempts: 5 }, budgets: { maxAttempts: 5 } });
    assert.deepEqual(attemptsBudget().evaluate(input), {
      guard: 'attemptsBudget()',
      reason: 'budget_attempts',
      outcome: 'failed_with_evidence',
      detail: '5 of 5 attempts used',
    });
  });

  test('does not stop below the limit', () => {
    assert.equal(attemptsBudget().evaluate(history([], { counters: { attempts: 4 }, budgets: { maxAttempts: 5 } })), undefined);
  });
});

describe('tokensBudget', () => {
  test('counts input plus output tokens', () => {
    const input = history([], { counters: { inputTokens: 6000, outputTokens: 4250 }, budgets: { maxTokens: 10_000 } });
    const verdict = tokensBudget().evaluate(input);
    assert.equal(verdict?.reason, 'budget_tokens');
    assert.equal(verdict?.detail, '10250 of 10000 tokens used');
  });

  test('does not stop below the limit', () => {
    const input = history([], { counters: { inputTokens: 6000, outputTokens: 3999 }, budgets: { maxTokens: 10_000 } });
    assert.equal(tokensBudget().evaluate(input), undefined);
  });
});

describe('wallClockBudget', () => {
  test('stops once the elapsed time reaches the limit', () => {
    const verdict = wallClockBudget().evaluate(history([], { counters: { elapsedMs: 60_000 }, budgets: { maxWallClockMs: 60_000 } }));
    assert.equal(verdict?.reason, 'budget_wall_clock');
    assert.equal(verdict?.detail, '60000 of 60000 ms used');
  });

  test('does not stop below the limit', () => {
    assert.equal(
      wallClockBudget().evaluate(history([], { counters: { elapsedMs: 59_999 }, budgets: { maxWallClockMs: 60_000 } })),
      undefined,
    );
  });
});

describe('costBudget', () => {
  test('stops once the cost reaches the limit', () => {
    const verdict = costBudget().evaluate(history([], { counters: { costUsd: 0.1 + 0.2 + 0.72 }, budgets: { maxCostUsd: 1 } }));
    assert.equal(verdict?.reason, 'budget_cost');
    assert.equal(verdict?.detail, '$1.02 of $1 used');
  });

  test('does not stop below the limit', () => {
    assert.equal(costBudget().evaluate(history([], { counters: { costUsd: 0.99 }, budgets: { maxCostUsd: 1 } })), undefined);
  });
});

describe('budgets', () => {
  test('returns the four budget guards in order', () => {
    assert.deepEqual(
      budgets().map((guard) => guard.name),
      ['attemptsBudget()', 'tokensBudget()', 'wallClockBudget()', 'costBudget()'],
    );
  });

  test('a limit that is not set never stops, however much is used', () => {
    const input = history([], {
      counters: { attempts: 1, inputTokens: 1e9, outputTokens: 1e9, elapsedMs: 1e9, costUsd: 1e6 },
      budgets: { maxAttempts: 100 },
    });
    for (const guard of budgets()) assert.equal(guard.evaluate(input), undefined, guard.name);
  });

  test('read only the counters', () => {
    for (const guard of budgets()) assert.equal(guard.lookback, 0, guard.name);
  });
});
