import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupByFirstLetter } from '../src/group-by-first-letter.js';

describe('groupByFirstLetter', () => {
  test('groups fruits by first letter, keeping input order', () => {
    assert.deepEqual(groupByFirstLetter(['apple', 'banana', 'avocado', 'cherry', 'blueberry']), {
      a: ['apple', 'avocado'],
      b: ['banana', 'blueberry'],
      c: ['cherry'],
    });
  });
  test('an empty list gives an empty object', () => {
    assert.deepEqual(groupByFirstLetter([]), {});
  });
  test('a single word gives a single group', () => {
    assert.deepEqual(groupByFirstLetter(['hello']), { h: ['hello'] });
  });
});
