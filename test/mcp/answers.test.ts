import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Candidate } from '../../src/core/candidate.js';
import type { Check } from '../../src/core/check.js';
import type { Finding } from '../../src/core/finding.js';
import { ANSWER_BUDGET, answerText, checksAnswer } from '../../src/mcp/answers.js';

const tests = { name: 'tests', required: true } as Check;

const failing = (index: number): Finding => ({
  check: 'tests',
  stage: 'fast',
  tier: 'demand',
  status: 'fail',
  reasonCodes: [`test.failed:case ${index}`],
  // A long failure, with escapes that grow when they are spelled out.
  message: `AssertionError: case ${index}\n${'\x1b[31mexpected 5, got -1\x1b[0m '.repeat(120)}`,
  location: { file: 'test/add.test.js', line: index, test: `case ${index}` },
});

describe('MCP answers', () => {
  it('fit the budget with 120 failing tests: distinct failing findings first, the rest counted', () => {
    const findings: Finding[] = [
      { check: 'scope', stage: 'fast', tier: 'format', status: 'pass', reasonCodes: [], message: '1 path(s) within scope' },
      ...Array.from({ length: 120 }, (_, index) => failing(index)),
    ];
    const candidate = {
      footprint: Array.from({ length: 1000 }, (_, index) => `src/${'deep/'.repeat(20)}file-${index}.js`),
    } as unknown as Candidate;
    const answer = checksAnswer([tests], candidate, findings);
    const text = answerText(answer);
    assert.ok(Buffer.byteLength(text) <= ANSWER_BUDGET, `${Buffer.byteLength(text)} bytes`);
    assert.deepEqual(JSON.parse(text.slice(text.indexOf('\n') + 1)), answer);
    assert.match(text, /^not passed: \d+ failing finding\(s\) \(\d+ more left out\)\n/);
    assert.equal(answer.passed, false);
    assert.ok(answer.findings.length > 20, `listed ${answer.findings.length}`);
    assert.ok(answer.findings.every((item) => item.status === 'fail'));
    assert.deepEqual(answer.findings[0]?.reasonCodes, ['test.failed:case 0']);
    assert.equal(answer.findings.length + answer.omitted, findings.length);
    assert.equal(answer.footprint.length + answer.footprintOmitted, 1000);
    assert.ok(answer.footprintOmitted > 0);
  });

  it('lists the same finding once, with its count', () => {
    const same: Finding = { ...failing(1), message: 'boom', location: { file: 'a.js' } };
    const answer = checksAnswer([tests], { footprint: [] } as unknown as Candidate, [same, same, same]);
    assert.deepEqual(
      answer.findings.map((item) => [item.message, item.count]),
      [['boom', 3]],
    );
    assert.equal(answer.omitted, 0);
  });
});
