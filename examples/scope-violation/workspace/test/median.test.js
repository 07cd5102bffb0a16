import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { median } from '../src/median.js';

describe('median', () => {
  test('odd length: the middle value once sorted', () => {
    assert.equal(median([3, 1, 2]), 2);
  });
  test('even length: the mean of the two middle values', () => {
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });
  test('a single number is its own median', () => {
    assert.equal(median([7]), 7);
  });
  test("does not reorder the caller's array", () => {
    const numbers = [3, 1, 2];
    median(numbers);
    assert.deepEqual(numbers, [3, 1, 2]);
  });
  test('an empty list throws a RangeError', () => {
    assert.throws(() => median([]), RangeError);
  });
});
