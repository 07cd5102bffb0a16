import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fizzbuzz } from '../src/fizzbuzz.js';

describe('fizzbuzz', () => {
  test('n = 5 gives 1, 2, Fizz, 4, Buzz', () => {
    assert.deepEqual(fizzbuzz(5), ['1', '2', 'Fizz', '4', 'Buzz']);
  });
  test('n = 15: position 3 is Fizz', () => {
    assert.equal(fizzbuzz(15)[2], 'Fizz');
  });
  test('n = 15: position 5 is Buzz', () => {
    assert.equal(fizzbuzz(15)[4], 'Buzz');
  });
  test('n = 15: position 15 is FizzBuzz', () => {
    const result = fizzbuzz(15);
    assert.equal(result.length, 15);
    assert.equal(result[14], 'FizzBuzz');
  });
  test('n = 0 gives an empty array', () => {
    assert.deepEqual(fizzbuzz(0), []);
  });
  test('n = 1 gives a single entry, 1', () => {
    assert.deepEqual(fizzbuzz(1), ['1']);
  });
});
