import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it } from 'node:test';
import { readReport } from '../../src/checks/reports/index.js';
import type { ReportFormat } from '../../src/checks/reports/test-result.js';
import { inventoryOf } from '../../src/checks/test-identity.js';

const dir = `${os.tmpdir()}/redline-runs/r1/check`;

const ids = (format: ReportFormat, text: string): string[] => inventoryOf(readReport(format, text).tests, dir).cases.map((item) => item.id);

describe('inventoryOf', () => {
  it('keeps a TAP case its identity when it goes from failing (with a location) to passing (without)', () => {
    const failing = [
      'TAP version 13',
      '# Subtest: math',
      '    # Subtest: adds',
      '    not ok 1 - adds',
      '      ---',
      `      location: '${dir}/test/math.test.mjs:4:3'`,
      "      error: '3 !== 4'",
      '      ...',
      '    1..1',
      'not ok 1 - math',
      '1..1',
    ].join('\n');
    const passing = 'TAP version 13\n# Subtest: math\n    # Subtest: adds\n    ok 1 - adds\n    1..1\nok 1 - math\n1..1\n';
    assert.deepEqual(ids('tap', failing), ['math > adds']);
    assert.deepEqual(ids('tap', passing), ['math > adds']);
  });

  it('keeps a JUnit case its identity when it goes from failing (a file and line in its stack) to passing', () => {
    const failing = `<testsuites><testsuite name="math"><testcase name="adds"><failure message="3 !== 4">AssertionError: 3 !== 4
    at TestContext.&lt;anonymous> (file://${dir}/test/math.test.mjs:4:3)</failure></testcase></testsuite></testsuites>`;
    const passing = '<testsuites><testsuite name="math"><testcase name="adds"/></testsuite></testsuites>';
    assert.deepEqual(readReport('junit', failing).tests[0]?.file, `file://${dir}/test/math.test.mjs`);
    assert.deepEqual(ids('junit', failing), ['math > adds']);
    assert.deepEqual(ids('junit', passing), ['math > adds']);
  });

  it('puts the file a JUnit report declares for the case (or its suite) first, relative to the copy, whether it fails or not', () => {
    const report = (body: string) =>
      `<testsuites><testsuite name="strings" file="${dir}/test/strings.spec.js"><testcase name="trims" line="${body === '' ? 9 : 12}">${body}</testcase></testsuite><testcase name="top" file="test/top.spec.js"/></testsuites>`;
    assert.deepEqual(ids('junit', report('<failure>boom</failure>')), ['test/strings.spec.js > strings > trims', 'test/top.spec.js > top']);
    assert.deepEqual(ids('junit', report('')), ['test/strings.spec.js > strings > trims', 'test/top.spec.js > top']);
    assert.deepEqual(inventoryOf(readReport('junit', report('')).tests, dir).cases[0], {
      id: 'test/strings.spec.js > strings > trims',
      status: 'pass',
      file: 'test/strings.spec.js',
    });
  });

  it('keeps cases that share suites and name apart by their place in the report, never by line', () => {
    const tape = [
      'TAP version 13',
      '# parses',
      'ok 1 should be equal',
      'not ok 2 should be equal',
      '  ---',
      `    at: Test.<anonymous> (${dir}/test/parse.js:7:5)`,
      '  ...',
      'ok 3 should be equal',
      '# stringifies',
      'ok 4 should be equal',
      '1..4',
    ].join('\n');
    assert.deepEqual(ids('tap', tape), [
      'parses > should be equal',
      'parses > should be equal #2',
      'parses > should be equal #3',
      'stringifies > should be equal',
    ]);
    // A name that already ends in ` #2` keeps its own; the next duplicate takes the next free number.
    assert.deepEqual(ids('tap', 'TAP version 13\nok 1 - a \\#2\nok 2 - a\nok 3 - a\n1..3\n'), ['a #2', 'a', 'a #3']);
  });

  it('holds no path of the copy or of another temp dir', () => {
    const elsewhere = `${os.tmpdir()}/redline-dXIpZf`;
    assert.deepEqual(ids('tap', `TAP version 13\nok 1 - ${dir}/test/a.test.js\nok 2 - ${elsewhere}/b.test.js\n1..2\n`), [
      'test/a.test.js',
      '<tmp>/b.test.js',
    ]);
  });
});
