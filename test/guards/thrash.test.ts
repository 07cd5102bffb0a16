import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_WINDOW_LOOKBACK, humanGate, noProgress, oscillation, rejectRepeat, repeatedOutput } from '../../src/guards/thrash.js';
import { history, states } from './history.js';

const infra = { infraError: true } as const;

describe('repeatedOutput', () => {
  test('stops when a candidate recurs within the window', () => {
    const input = history([{ candidateHash: 'aaaaaaaa1' }, { candidateHash: 'b' }, { candidateHash: 'aaaaaaaa1' }]);
    assert.deepEqual(repeatedOutput(3, 2).evaluate(input), {
      guard: 'repeatedOutput(3, 2)',
      reason: 'repeated_output',
      outcome: 'failed_with_evidence',
      detail: 'candidate aaaaaaaa proposed 2 times within 3 attempts',
    });
  });

  test('does not stop when the repeat lies outside the window', () => {
    const input = history([{ candidateHash: 'a' }, { candidateHash: 'b' }, { candidateHash: 'c' }, { candidateHash: 'a' }]);
    assert.equal(repeatedOutput(3, 2).evaluate(input), undefined);
  });

  test('does not stop below the repeat count', () => {
    const hashes = (...values: string[]) => history(values.map((candidateHash) => ({ candidateHash })));
    assert.equal(repeatedOutput(3, 3).evaluate(hashes('a', 'a', 'b')), undefined);
    assert.notEqual(repeatedOutput(4, 3).evaluate(hashes('a', 'a', 'b', 'a')), undefined);
  });

  test('ignores infrastructure-error attempts', () => {
    const input = history([{ candidateHash: 'a', ...infra }, { candidateHash: 'a' }, { candidateHash: 'b' }]);
    assert.equal(repeatedOutput(3, 2).evaluate(input), undefined);
  });

  test('reads window attempts and rejects impossible parameters', () => {
    assert.equal(repeatedOutput(5, 2).lookback, 5);
    assert.throws(() => repeatedOutput(3, 1), { name: 'TypeError', message: 'Expected `repeats` to be an integer ≥ 2, got 1' });
    assert.throws(() => repeatedOutput(2, 3), { name: 'TypeError', message: 'Expected `repeats` to be ≤ `window` (2), got 3' });
  });
});

describe('oscillation', () => {
  test('detects A→B→A as a cycle of length 2', () => {
    const verdict = oscillation().evaluate(states('A', 'B', 'A'));
    assert.equal(verdict?.guard, 'oscillation()');
    assert.equal(verdict?.reason, 'oscillation');
    assert.equal(verdict?.outcome, 'failed_with_evidence');
    assert.match(verdict?.detail ?? '', /cycle of length 2/);
  });

  test('does not report A→A→A: a state that never left is not a cycle', () => {
    assert.equal(oscillation().evaluate(states('A', 'A', 'A')), undefined);
    assert.equal(oscillation().evaluate(states('A', 'A')), undefined);
  });

  test('detects cycles of length 3', () => {
    assert.match(oscillation().evaluate(states('A', 'B', 'C', 'A'))?.detail ?? '', /cycle of length 3/);
  });

  test('does not stop without a recurrence', () => {
    assert.equal(oscillation().evaluate(states('A', 'B', 'C', 'D')), undefined);
    assert.equal(oscillation().evaluate(states()), undefined);
  });

  test('only looks back as far as the progress window', () => {
    const input = states('A', 'B', 'C', 'D', 'A');
    assert.equal(oscillation().evaluate({ ...input, progressWindow: 3 }), undefined);
    assert.match(oscillation().evaluate({ ...input, progressWindow: 4 })?.detail ?? '', /cycle of length 4/);
  });

  test('an explicit window overrides the progress window', () => {
    const input = { ...states('A', 'B', 'C', 'A'), progressWindow: 10 };
    assert.equal(oscillation(2).evaluate(input), undefined);
    assert.notEqual(oscillation(3).evaluate(input), undefined);
  });

  test('ignores infrastructure-error attempts', () => {
    const withInfraBetween = history([{ signature: 'A' }, { signature: 'A', ...infra }, { signature: 'A' }]);
    assert.equal(oscillation().evaluate(withInfraBetween), undefined);
    const withInfraCycle = history([{ signature: 'A' }, { signature: 'B', ...infra }, { signature: 'A' }]);
    assert.equal(oscillation().evaluate(withInfraCycle), undefined);
  });

  test('sizes its lookback from the window', () => {
    assert.equal(oscillation().lookback, DEFAULT_WINDOW_LOOKBACK);
    assert.equal(oscillation(4).lookback, 5);
    assert.throws(() => oscillation(1), TypeError);
  });
});

describe('rejectRepeat', () => {
  const rejections = (...values: string[]) => history(values.map((rejection) => ({ rejection })));

  test('stops when rejections alternate X, Y, X, Y', () => {
    const verdict = rejectRepeat().evaluate(rejections('lint', 'tests', 'lint', 'tests'));
    assert.deepEqual(verdict, {
      guard: 'rejectRepeat()',
      reason: 'reject_repeat',
      outcome: 'failed_with_evidence',
      detail: 'rejections alternate lint, tests, lint, tests',
    });
  });

  test('skips empty rejections', () => {
    assert.notEqual(rejectRepeat().evaluate(rejections('lint', 'tests', '', 'lint', 'tests')), undefined);
  });

  test('does not stop on X, X, X, X, on three alternations, or on other patterns', () => {
    assert.equal(rejectRepeat().evaluate(rejections('lint', 'lint', 'lint', 'lint')), undefined);
    assert.equal(rejectRepeat().evaluate(rejections('lint', 'tests', 'lint')), undefined);
    assert.equal(rejectRepeat().evaluate(rejections('lint', 'tests', 'types', 'tests')), undefined);
    assert.equal(rejectRepeat().evaluate(rejections('lint', 'tests', 'tests', 'lint')), undefined);
  });

  test('ignores infrastructure-error attempts', () => {
    const input = history([{ rejection: 'lint' }, { rejection: 'tests' }, { rejection: 'lint', ...infra }, { rejection: 'tests' }]);
    assert.equal(rejectRepeat().evaluate(input), undefined);
  });
});

describe('noProgress', () => {
  const stalled = { progress: false } as const;

  test('stops when the last window attempts made no progress', () => {
    const verdict = noProgress(3).evaluate(history([{}, stalled, stalled, stalled]));
    assert.deepEqual(verdict, {
      guard: 'noProgress(3)',
      reason: 'no_progress',
      outcome: 'failed_with_evidence',
      detail: 'no progress in the last 3 attempts',
    });
  });

  test('does not stop when one attempt in the window progressed, or before window attempts', () => {
    assert.equal(noProgress(3).evaluate(history([stalled, {}, stalled])), undefined);
    assert.equal(noProgress(3).evaluate(history([stalled, stalled])), undefined);
  });

  test('defaults the window to the progress window', () => {
    const input = history([stalled, stalled]);
    assert.equal(noProgress().evaluate({ ...input, progressWindow: 3 }), undefined);
    assert.equal(noProgress().evaluate({ ...input, progressWindow: 2 })?.guard, 'noProgress()');
  });

  test('ignores infrastructure-error attempts', () => {
    assert.equal(noProgress(3).evaluate(history([{}, stalled, { ...infra, progress: false }, stalled])), undefined);
    assert.notEqual(noProgress(3).evaluate(history([stalled, { ...infra, progress: true }, stalled, stalled])), undefined);
  });

  test('sizes its lookback from the window', () => {
    assert.equal(noProgress().lookback, DEFAULT_WINDOW_LOOKBACK);
    assert.equal(noProgress(5).lookback, 5);
  });
});

describe('humanGate', () => {
  test('blocks after n failed rounds', () => {
    assert.deepEqual(humanGate(3).evaluate(history([], { counters: { failedRounds: 3 } })), {
      guard: 'humanGate(3)',
      reason: 'human_gate',
      outcome: 'blocked',
      detail: '3 failed critic rounds (gate at 3)',
    });
  });

  test('does not block before n failed rounds', () => {
    assert.equal(humanGate(3).evaluate(history([], { counters: { failedRounds: 2 } })), undefined);
  });

  test('rejects n < 1', () => {
    assert.throws(() => humanGate(0), TypeError);
  });
});
