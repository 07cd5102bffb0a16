import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { CheckContext } from '../../src/core/check.js';
import type { Finding } from '../../src/core/finding.js';
import { EMPTY_CANDIDATE } from '../../src/core/candidate.js';
import type { ReportFormat } from '../../src/checks/reports/test-result.js';
import { testRunnerCheck } from '../../src/checks/test-runner-check.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { inventoryChannel, type RecordingChannel } from './inventory-channel.js';

function context(dir: string, inventory: RecordingChannel): CheckContext {
  return { dir, candidate: EMPTY_CANDIDATE, goal: 'fix it', attempt: 1, signal: new AbortController().signal, inventory };
}

const brief = (findings: readonly Finding[]) => findings.map((item) => [item.status, ...item.reasonCodes]);

/** The check on a report it prints (`cat`), exiting `exit`: first at the baseline, then on a candidate. */
async function baselineThenCandidate({
  format,
  baseline,
  candidate,
  exits = [0, 0],
  allowMissing,
}: {
  format: ReportFormat;
  baseline: string;
  candidate: string;
  exits?: [number, number];
  allowMissing?: string[];
}): Promise<{ atBaseline: readonly Finding[]; onCandidate: readonly Finding[]; channel: RecordingChannel }> {
  const dir = await tempWorkspace({ 'report.txt': baseline });
  const check = (exit: number) =>
    testRunnerCheck({
      name: 'tests',
      command: `cat report.txt; exit ${exit}`,
      format,
      ...(allowMissing === undefined ? {} : { allowMissing }),
    });
  const first = inventoryChannel();
  const atBaseline = await check(exits[0]).run(context(dir, first));
  await writeFile(path.join(dir, 'report.txt'), candidate);
  const channel = inventoryChannel(first.recorded);
  const onCandidate = await check(exits[1]).run(context(dir, channel));
  return { atBaseline, onCandidate, channel };
}

describe('testRunnerCheck: the red line cannot shrink', () => {
  it('fails a candidate that exits at import: node reports each file ok and none of the baseline tests by name', async () => {
    const dir = await tempWorkspace({
      'package.json': '{"type":"module"}',
      'src/add.js': 'export const add = (a, b) => a + b;\n',
      'test/a.test.js':
        "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/add.js';\ntest('adds', () => assert.equal(add(1, 2), 3));\n",
      'test/b.test.js':
        "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/add.js';\ntest('adds zero', () => assert.equal(add(1, 0), 2));\n",
    });
    const check = testRunnerCheck({ name: 'tests', command: 'node --test --test-reporter=tap test/', format: 'tap' });
    const first = inventoryChannel();
    assert.deepEqual(brief(await check.run(context(dir, first))), [['fail', 'test.failed:adds zero']]);
    assert.deepEqual(first.recorded.get('tests'), {
      cases: [
        { id: 'adds', status: 'pass' },
        { id: 'adds zero', status: 'fail' },
      ],
    });

    await writeFile(path.join(dir, 'src/add.js'), 'process.exit(0);\nexport const add = (a, b) => a + b;\n');
    const channel = inventoryChannel(first.recorded);
    const findings = await check.run(context(dir, channel));
    assert.ok(!findings.some((item) => item.status === 'pass'), JSON.stringify(findings));
    assert.deepEqual(brief(findings), [
      ['fail', 'test.missing:adds'],
      ['fail', 'test.missing:adds zero'],
      ['fail', 'test.inventory_shrank'],
    ]);
    assert.deepEqual(
      findings.map((item) => item.location),
      [{ test: 'adds' }, { test: 'adds zero' }, undefined],
    );
    assert.equal(findings[2]?.message, '2 of 2 baseline tests did not run (2 missing, 0 newly skipped)');
    // What the candidate's report held instead: each test file, by its path in the copy.
    assert.deepEqual(channel.recorded.get('tests'), {
      cases: [
        { id: 'test/a.test.js', status: 'pass' },
        { id: 'test/b.test.js', status: 'pass' },
      ],
    });
  });

  it('fails a JUnit report with fewer cases, naming the lost case by its declared file, suites and name', async () => {
    const junit = (cases: string) => `<testsuites><testsuite name="math" file="test/math.spec.js">${cases}</testsuite></testsuites>`;
    const { onCandidate } = await baselineThenCandidate({
      format: 'junit',
      baseline: junit('<testcase name="adds"/><testcase name="divides"/><testcase name="subtracts"/>'),
      candidate: junit('<testcase name="adds"/><testcase name="subtracts"/>'),
    });
    assert.deepEqual(brief(onCandidate), [
      ['fail', 'test.missing:test/math.spec.js > math > divides'],
      ['fail', 'test.inventory_shrank'],
    ]);
    assert.deepEqual(onCandidate[0]?.location, { test: 'test/math.spec.js > math > divides', file: 'test/math.spec.js' });
    assert.equal(onCandidate[1]?.message, '1 of 3 baseline tests did not run (1 missing, 0 newly skipped)');
  });

  it('fails a case that ran at the baseline and is skipped or TODO now; one skipped at the baseline may stay so', async () => {
    const { onCandidate } = await baselineThenCandidate({
      format: 'tap',
      baseline: 'TAP version 13\nok 1 - a\nnot ok 2 - b\nok 3 - c # SKIP flaky\nnot ok 4 - d\n1..4\n',
      candidate: 'TAP version 13\nok 1 - a\nok 2 - b # SKIP later\nok 3 - c # TODO\nnot ok 4 - d # TODO\n1..4\n',
      exits: [1, 0],
    });
    assert.deepEqual(brief(onCandidate), [
      ['fail', 'test.newly_skipped:b'],
      ['fail', 'test.newly_skipped:d'],
      ['fail', 'test.inventory_shrank'],
    ]);
    assert.equal(onCandidate[0]?.message, 'b ran at the baseline but is skip now');
    assert.equal(onCandidate[1]?.message, 'd ran at the baseline but is todo now');
    assert.equal(onCandidate[2]?.message, '2 of 4 baseline tests did not run (0 missing, 2 newly skipped)');
  });

  it('fails a report with zero cases when the baseline had some', async () => {
    const { onCandidate } = await baselineThenCandidate({
      format: 'tap',
      baseline: 'TAP version 13\nok 1 - a\n1..1\n',
      candidate: 'TAP version 13\n1..0\n',
    });
    assert.deepEqual(brief(onCandidate), [
      ['fail', 'test.none_passed'],
      ['fail', 'test.missing:a'],
      ['fail', 'test.inventory_shrank'],
    ]);
  });

  it('counts new cases but never lets them stand in for baseline ones', async () => {
    const grown = await baselineThenCandidate({
      format: 'tap',
      baseline: 'TAP version 13\nok 1 - a\nnot ok 2 - b\n1..2\n',
      candidate: 'TAP version 13\nok 1 - a\nok 2 - b\nok 3 - c\n1..3\n',
      exits: [1, 0],
    });
    assert.deepEqual(brief(grown.onCandidate), [['pass']]);
    assert.equal(grown.onCandidate[0]?.message, '3 passed (1 new)');

    const swapped = await baselineThenCandidate({
      format: 'tap',
      baseline: 'TAP version 13\nok 1 - a\nnot ok 2 - b\n1..2\n',
      candidate: 'TAP version 13\nok 1 - a\nok 2 - b2\nok 3 - c\n1..3\n',
      exits: [1, 0],
    });
    assert.deepEqual(brief(swapped.onCandidate), [
      ['fail', 'test.missing:b'],
      ['fail', 'test.inventory_shrank'],
    ]);
  });

  it('lets allowMissing name stated removals: the check passes and says which, one reason code each', async () => {
    const { onCandidate } = await baselineThenCandidate({
      format: 'tap',
      baseline: 'TAP version 13\nok 1 - a\nok 2 - legacy > parses\nok 3 - legacy > prints\nok 4 - b\n1..4\n',
      candidate: 'TAP version 13\nok 1 - a\nok 2 - b # SKIP gone soon\nok 3 - c\n1..3\n',
      allowMissing: ['legacy > *', 'b'],
    });
    assert.deepEqual(brief(onCandidate), [
      ['pass', 'test.allowed_missing:legacy > parses', 'test.allowed_missing:legacy > prints', 'test.allowed_missing:b'],
    ]);
    assert.equal(
      onCandidate[0]?.message,
      '2 passed (1 new), 1 skipped; allowMissing let 3 baseline tests go missing or skipped: legacy > parses, legacy > prints, b',
    );
  });

  it('hands in what every report held, failures included, at the baseline and on candidates', async () => {
    const { channel } = await baselineThenCandidate({
      format: 'node-spec',
      baseline: '✔ a (1ms)\n',
      candidate: '✔ a (1ms)\n✖ b (1ms)\n  Error: boom\n﹣ c (1ms) # SKIP\n✔ d (1ms) # TODO\n',
      exits: [0, 1],
    });
    assert.deepEqual(channel.recorded.get('tests'), {
      cases: [
        { id: 'a', status: 'pass' },
        { id: 'b', status: 'fail' },
        { id: 'c', status: 'skip' },
        { id: 'd', status: 'todo' },
      ],
    });
  });
});
