import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finding } from '../../src/core/check.js';
import { findingLine, lastFindings } from '../../src/cli/format.js';

const tests = { name: 'tests', stage: 'fast', tier: 'demand', required: true } as const;
const failed = (test: string, message: string) => finding(tests, 'fail', [`test.failed:${test}`], message, { location: { test } });

describe('the last findings of a run summary', () => {
  it('names the test and says what differed when the first line only announces it', () => {
    assert.equal(
      findingLine(failed('adds zero', 'Expected values to be strictly equal:\n\n1 !== 2\n')),
      'fail  tests › adds zero: Expected values to be strictly equal: 1 !== 2',
    );
    assert.equal(findingLine(failed('adds', 'boom\nat x.js:1')), 'fail  tests › adds: boom');
    const long = findingLine(failed('t', `Expected:\n${'x'.repeat(500)}`));
    assert.ok(long.length < 200 && long.endsWith('…'), long);
    // Test names and messages are untrusted: no terminal escape reaches the summary.
    assert.ok(!findingLine(failed('\u001b]0;owned\u0007', '\u001b[2Jwiped')).includes('\u001b'));
  });

  it('shows the same line once, with how many times it came, and at most ten lines', () => {
    const same = failed('adds', 'Expected values to be strictly equal:\n\n1 !== 2');
    assert.deepEqual(lastFindings([same, same, same, finding(tests, 'pass', [], 'ok')]), [
      '  fail  tests › adds: Expected values to be strictly equal: 1 !== 2 (×3)',
    ]);
    const many = Array.from({ length: 12 }, (_, index) => failed(`t${index}`, 'no'));
    assert.deepEqual(lastFindings(many).slice(-2), ['  fail  tests › t9: no', '  … and 2 more in the ledger']);
  });
});
