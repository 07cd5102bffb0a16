import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isEven } from '../src/is-even.js';

describe('isEven', () => {
  test('4 is even', () => assert.equal(isEven(4), true));
  test('3 is odd', () => assert.equal(isEven(3), false));
  test('0 is even', () => assert.equal(isEven(0), true));
  test('1 is odd', () => assert.equal(isEven(1), false));
  test('-2 is even', () => assert.equal(isEven(-2), true));
  test('-1 is odd', () => assert.equal(isEven(-1), false));
  test('1000000 is even', () => assert.equal(isEven(1000000), true));
  test('1000001 is odd', () => assert.equal(isEven(1000001), false));
});
