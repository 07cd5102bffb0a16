import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertLabel, countLabels, labelPolicy, suggestFilters, VERDICT_LABELS } from '../../src/review/labels.js';
import { ReviewError } from '../../src/review/review-error.js';

describe('verdict labels', () => {
  it('knows the five built-in labels and adds configured ones once', () => {
    assert.deepEqual(VERDICT_LABELS, ['code_error', 'logic_error', 'format_issue', 'hallucination', 'unclear']);
    assert.deepEqual(labelPolicy({ extra: ['missing_tests', 'unclear'] }).labels, [...VERDICT_LABELS, 'missing_tests']);
    assert.throws(() => labelPolicy({ extra: ['Bad Label'] }), {
      name: 'TypeError',
      message: 'Expected a label in snake_case (a-z, 0-9, _), got "Bad Label"',
    });
  });

  it('refuses an unknown label with the ones it knows', () => {
    assert.throws(
      () => assertLabel(labelPolicy(), 'typo', 'item-1'),
      (error: unknown) =>
        error instanceof ReviewError &&
        error.code === 'review.unknown_label' &&
        error.itemId === 'item-1' &&
        /expected one of code_error, logic_error/.test(error.message),
    );
    assert.doesNotThrow(() => assertLabel(labelPolicy(), 'hallucination', 'item-1'));
  });

  it('suggests a filter rule for a label seen more than 3 times, most frequent first', () => {
    const policy = labelPolicy();
    const counts = countLabels(policy, [
      'format_issue',
      'unclear',
      'unclear',
      'unclear',
      'format_issue',
      'format_issue',
      'format_issue',
      'format_issue',
      'unclear',
      'logic_error',
      'logic_error',
      'logic_error',
    ]);
    assert.deepEqual(counts, { code_error: 0, logic_error: 3, format_issue: 5, hallucination: 0, unclear: 4 });
    assert.deepEqual(suggestFilters(policy, counts, 12), [
      { label: 'format_issue', count: 5, suggestion: 'add an automatic filter rule for format_issue: 5 of the last 12 verdicts carry it' },
      { label: 'unclear', count: 4, suggestion: 'add an automatic filter rule for unclear: 4 of the last 12 verdicts carry it' },
    ]);
  });
});
