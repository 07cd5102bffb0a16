import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { CheckContext } from '../../src/core/check.js';
import type { Finding } from '../../src/core/finding.js';
import { EMPTY_CANDIDATE } from '../../src/core/candidate.js';
import { testRunnerCheck, type TestRunnerCheckOptions } from '../../src/checks/test-runner-check.js';
import { tempWorkspace } from '../helpers/workspace.js';

function context(dir: string, sandbox?: CheckContext['sandbox']): CheckContext {
  return {
    dir,
    candidate: EMPTY_CANDIDATE,
    goal: 'fix it',
    attempt: 1,
    signal: new AbortController().signal,
    ...(sandbox === undefined ? {} : { sandbox }),
  };
}

const brief = (findings: readonly Finding[]) => findings.map((item) => [item.status, ...item.reasonCodes]);

async function tapCheck(report: string, exit = 0): Promise<readonly Finding[]> {
  const dir = await tempWorkspace({ 'report.tap': report });
  return testRunnerCheck({ name: 'tests', command: `cat report.tap; exit ${exit}`, format: 'tap' }).run(context(dir));
}

const noBwrap = existsSync('/usr/bin/bwrap') ? false : 'bubblewrap is not installed (/usr/bin/bwrap)';

describe('testRunnerCheck: a report must be whole', () => {
  it('fails a TAP stream without a plan: the runner never finished it', async () => {
    const findings = await tapCheck('TAP version 13\nok 1 - adds\nok 2 - subtracts\n');
    assert.deepEqual(brief(findings), [['fail', 'report.no_plan']]);
    assert.match(findings[0]?.message ?? '', /no plan \(1\.\.N\) after 2 top-level tests/);
  });

  it('fails a TAP stream whose plan counts other tests than it holds', async () => {
    const findings = await tapCheck('TAP version 13\n1..3\nok 1 - adds\nok 2 - subtracts\n');
    assert.deepEqual(brief(findings), [['fail', 'report.plan_mismatch']]);
    assert.equal(findings[0]?.message, 'the plan (1..3) promises 3 top-level tests but the stream has 2');
  });

  it('fails a TAP stream that bailed out, whatever passed before it', async () => {
    const findings = await tapCheck('TAP version 13\n1..2\nok 1 - connects\nBail out! database gone\n');
    assert.deepEqual(brief(findings), [['fail', 'report.bail_out']]);
    assert.equal(findings[0]?.message, 'the test runner bailed out: database gone');
  });

  it('fails a report with failing tests under exit status 0, naming both', async () => {
    const findings = await tapCheck('TAP version 13\nnot ok 1 - adds\nnot ok 2 - subtracts\nok 3 - later # TODO\n1..3\n');
    assert.deepEqual(brief(findings), [
      ['fail', 'test.failed:adds'],
      ['fail', 'test.failed:subtracts'],
      ['fail', 'test.exit_zero_with_failures'],
    ]);
    assert.equal(findings[2]?.message, 'the command exited 0 but its report has 2 failing tests');
  });

  it('passes a whole report whose exit status agrees, counting TODO tests apart from skipped ones', async () => {
    const findings = await tapCheck('TAP version 13\nok 1 - adds\nok 2 - divides # SKIP\nnot ok 3 - later # TODO\n1..3\n');
    assert.deepEqual(brief(findings), [['pass']]);
    assert.equal(findings[0]?.message, '1 passed, 1 skipped, 1 todo');
  });
});

describe('testRunnerCheck: report files a candidate cannot plant', () => {
  const test = ["import { test } from 'node:test';", "test('adds', () => {});", "test('subtracts', () => {});", ''].join('\n');
  const planted = '<testsuites><testcase name="adds"/><testcase name="subtracts"/><testcase name="forged"/></testsuites>';

  it('gives the command a fresh path outside its copy in $REDLINE_REPORT, reads the report there, and removes it after', async () => {
    const dir = await tempWorkspace({ 'test/math.test.mjs': test, 'report.xml': planted });
    const command =
      'echo "$REDLINE_REPORT" > where.txt && test ! -e "$REDLINE_REPORT" && node --test --test-reporter=junit --test-reporter-destination="$REDLINE_REPORT" test/';
    const findings = await testRunnerCheck({ name: 'tests', command, format: 'junit', reportFile: '$REDLINE_REPORT' }).run(context(dir));
    assert.deepEqual(brief(findings), [['pass']]);
    assert.equal(findings[0]?.message, '2 passed');
    const where = (await readFile(path.join(dir, 'where.txt'), 'utf8')).trim();
    assert.ok(path.isAbsolute(where) && where.startsWith(`${os.tmpdir()}/`) && !where.startsWith(`${dir}/`), where);
    assert.equal(existsSync(path.dirname(where)), false, 'the report directory is removed after the check');
  });

  it('never reads a report the candidate planted: not at the fresh path, not at a relative reportFile', async () => {
    const dir = await tempWorkspace({ 'test/math.test.mjs': test, 'report.xml': planted, $REDLINE_REPORT: planted });
    // The runner writes its report somewhere else (stdout), or nothing.
    const fresh = testRunnerCheck({
      name: 'tests',
      command: 'node --test --test-reporter=junit test/',
      format: 'junit',
      reportFile: '$REDLINE_REPORT',
    });
    assert.deepEqual(brief(await fresh.run(context(dir))), [['error', 'report.missing']]);
    const relative = testRunnerCheck({ name: 'tests', command: 'true', format: 'junit', reportFile: 'report.xml' });
    assert.deepEqual(relative.outputs, ['report.xml']);
    assert.deepEqual(brief(await relative.run(context(dir))), [['error', 'report.missing']]);
    assert.equal(existsSync(path.join(dir, 'report.xml')), false);
  });

  it('lets a sandboxed command write its fresh report', { skip: noBwrap }, async () => {
    const dir = await tempWorkspace({ 'test/math.test.mjs': test });
    const options: TestRunnerCheckOptions = {
      name: 'tests',
      command: 'node --test --test-reporter=junit --test-reporter-destination="$REDLINE_REPORT" test/',
      format: 'junit',
      reportFile: '$REDLINE_REPORT',
    };
    const findings = await testRunnerCheck(options).run(context(dir, { kind: 'bwrap', network: false }));
    assert.deepEqual(brief(findings), [['pass']], JSON.stringify(findings));
  });
});
