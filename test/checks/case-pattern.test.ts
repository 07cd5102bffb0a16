import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { casePattern } from '../../src/checks/case-pattern.js';

describe('casePattern', () => {
  const matches = (pattern: string, id: string): boolean => casePattern(pattern)(id);

  it('lets * stand for any run of characters, slashes and " > " included, and matches whole ids', () => {
    assert.equal(matches('test/legacy/* > *', 'test/legacy/old/a.test.js > dates > parses'), true);
    assert.equal(matches('legacy > *', 'legacy > parses'), true);
    assert.equal(matches('legacy > *', 'new > legacy > parses'), false);
    assert.equal(matches('*legacy*', 'new > legacy > parses'), true);
    assert.equal(matches('adds', 'adds #2'), false);
    assert.equal(matches('adds*', 'adds #2'), true);
  });

  it('lets ? stand for one character, \\ make the next one literal, and reads everything else as itself', () => {
    assert.equal(matches('adds #?', 'adds #2'), true);
    assert.equal(matches('adds #?', 'adds #12'), false);
    assert.equal(matches('2 \\* 3 (x) [y] $z.', '2 * 3 (x) [y] $z.'), true);
    assert.equal(matches('2 \\* 3', '2 times 3'), false);
    assert.equal(matches('Adds', 'adds'), false);
    assert.equal(matches('naïve 🧪 *', 'naïve 🧪 case'), true);
  });
});
