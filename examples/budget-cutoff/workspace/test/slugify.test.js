import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { slugify } from '../src/slugify.js';

describe('slugify', () => {
  test('lower-cases and joins words with "-"', () => {
    assert.equal(slugify('Hello World'), 'hello-world');
  });
  test('collapses runs of spaces', () => {
    assert.equal(slugify('Multiple   spaces here'), 'multiple-spaces-here');
  });
  test('drops punctuation', () => {
    assert.equal(slugify('Rock & Roll!'), 'rock-roll');
  });
  test('trims leading and trailing separators', () => {
    assert.equal(slugify('  -- Trim me --  '), 'trim-me');
  });
  test('keeps digits', () => {
    assert.equal(slugify('Top 10 Tips for 2024'), 'top-10-tips-for-2024');
  });
  test('an empty title gives an empty slug', () => {
    assert.equal(slugify(''), '');
  });
});
