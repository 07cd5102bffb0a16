import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { CheckContext } from '../../src/core/check.js';
import type { Finding } from '../../src/core/finding.js';
import { missingScriptFinding } from '../../src/checks/process-finding.js';
import { testRunnerCheck } from '../../src/checks/test-runner-check.js';
import type { ReportFormat } from '../../src/checks/reports/test-result.js';
import { EMPTY_CANDIDATE } from '../../src/core/candidate.js';
import { failingCodes } from '../../src/state/signature.js';
import { tempWorkspace, tempDir } from '../helpers/workspace.js';

const QS_REPORT = new URL('../fixtures/reports/qs-6.14.0-tape.tap', import.meta.url);

/** A fresh copy of `source` under the temp dir, as each run (and attempt) of a mission checks its own copy. */
async function copyOf(source: string): Promise<string> {
  const dir = await tempDir('redline-copy-');
  await cp(source, dir, { recursive: true });
  return dir;
}

function context(dir: string): CheckContext {
  return { dir, candidate: EMPTY_CANDIDATE, goal: 'fix it', attempt: 1, signal: new AbortController().signal };
}

async function runCheck(dir: string, command: string, format: ReportFormat): Promise<readonly Finding[]> {
  return testRunnerCheck({ name: 'tests', command, format }).run(context(dir));
}

describe('testRunnerCheck', () => {
  const loadFailure = {
    'test/add.test.js': 'const add = (a, b) => a + ;\n',
    'test/ok.test.mjs': "import test from 'node:test';\ntest('adds', () => {});\n",
  };

  for (const [format, reporter] of [
    ['tap', 'tap'],
    ['node-spec', 'spec'],
  ] as const) {
    it(`reports a test file that fails to load (${reporter}) with the loader's error, under a code without temp paths`, async () => {
      const source = await tempWorkspace(loadFailure);
      const runs = [await copyOf(source), await copyOf(source)];
      const found = await Promise.all(runs.map((dir) => runCheck(dir, `node --test --test-reporter=${reporter}`, format)));
      for (const [index, findings] of found.entries()) {
        const failed = findings.filter((item) => item.status === 'fail');
        assert.equal(failed.length, 1, JSON.stringify(findings));
        const [finding] = failed as [Finding];
        assert.deepEqual(finding.reasonCodes, ['test.failed:test/add.test.js']);
        assert.match(finding.message, /SyntaxError: Unexpected token ';'/);
        assert.match(finding.message, /^test\/add\.test\.js:1\nconst add = \(a, b\) => a \+ ;/);
        assert.ok(!finding.message.includes(runs[index] as string), finding.message);
        assert.deepEqual(finding.location, { test: 'test/add.test.js', file: 'test/add.test.js', line: 1 });
      }
      assert.deepEqual(...(found.map((findings) => findings.map((item) => item.reasonCodes)) as [string[][], string[][]]));
    });
  }

  it('shows a temp dir outside the copy as <tmp> in codes and messages', async () => {
    const dir = await tempWorkspace({});
    const elsewhere = path.join(os.tmpdir(), 'redline-dXIpZf');
    await writeFile(
      path.join(dir, 'report.tap'),
      `TAP version 13\nnot ok 1 - ${elsewhere}/test/add.test.js\n  ---\n  error: 'cannot read ${elsewhere}/x'\n  ...\nok 2 - adds\n1..2\n`,
    );
    const [finding] = await runCheck(dir, 'cat report.tap; exit 1', 'tap');
    assert.deepEqual(finding?.reasonCodes, ['test.failed:<tmp>/test/add.test.js']);
    assert.equal(finding?.message, 'cannot read <tmp>/x');
  });

  it('keeps failing assertions that share a name apart by their location (qs 6.14.0 under tape)', async () => {
    // The real report, as if the suite had run in this check's copy.
    const dir = await tempWorkspace({ 'test/parse.js': '' });
    const report = (await readFile(QS_REPORT, 'utf8')).replaceAll('/tmp/h1/qs/work', dir);
    await writeFile(path.join(dir, 'report.tap'), report);
    const findings = await runCheck(dir, 'cat report.tap; exit 1', 'tap');
    assert.deepEqual(
      findings.map((item) => [item.status, item.reasonCodes, item.location]),
      [
        [
          'fail',
          ['test.failed:only parses one level when depth = 1 > should be deeply equivalent @ test/parse.js:205'],
          { test: 'only parses one level when depth = 1 > should be deeply equivalent', file: 'test/parse.js', line: 205 },
        ],
        [
          'fail',
          ['test.failed:only parses one level when depth = 1 > should be deeply equivalent @ test/parse.js:206'],
          { test: 'only parses one level when depth = 1 > should be deeply equivalent', file: 'test/parse.js', line: 206 },
        ],
        [
          'fail',
          ['test.failed:does not throw an exception when depth exceeds the limit with strictDepth: false > parses with depth limit'],
          {
            test: 'does not throw an exception when depth exceeds the limit with strictDepth: false > parses with depth limit',
            file: 'test/parse.js',
            line: 1251,
          },
        ],
      ],
    );
    // Three failing assertions count three: progress and the thrash guards see each.
    assert.equal(failingCodes(findings, new Set(['tests'])).length, 3);
    assert.equal(
      findings[1]?.message,
      [
        'should be deeply equivalent',
        'operator: deepEqual',
        "expected: { a: { b: { '[c][d]': 'e' } } }",
        "actual: { a: { b: { c: { '[d]': 'e' } } } }",
        'at: Test.<anonymous> (test/parse.js:206:12)',
      ].join('\n'),
    );
  });
});

describe('missingScriptFinding: the interpreter could not find the script the command names', () => {
  const check = { name: 'c', stage: 'fast' as const, tier: 'demand' as const };
  const result = (stderr: string, exitCode = 1) => ({ exitCode, signal: null, stdout: '', stderr, durationMs: 1 }) as never;
  it('node, node --test and python name the missing script; it is reported relative to the copy', () => {
    for (const [command, stderr] of [
      [['node', 'bin/run.js'], "node:internal/modules/cjs/loader:1210\n  throw err;\nError: Cannot find module '/copy/bin/run.js'\n"],
      [['node', '--test', 'test/a.test.js'], "Could not find '/copy/test/a.test.js'\n"],
      [['python3', './bin/run.py'], "python3: can't open file '/copy/bin/run.py': [Errno 2] No such file or directory\n"],
    ] as const) {
      const found = missingScriptFinding(check, { command, cwd: '/copy', result: result(stderr) });
      assert.deepEqual([found?.status, found?.reasonCodes], ['error', ['process.script_missing']], command.join(' '));
      assert.equal(found?.location?.file, command.at(-1)?.replace(/^\.\//, ''));
    }
  });
  it('is not a module the script imports, a shell command line, or a command that succeeded', () => {
    assert.equal(
      missingScriptFinding(check, { command: ['node', 'test/a.js'], cwd: '/copy', result: result("Error: Cannot find module 'tape'\n") }),
      undefined,
    );
    assert.equal(
      missingScriptFinding(check, {
        command: 'node bin/run.js',
        cwd: '/copy',
        result: result("Error: Cannot find module '/copy/bin/run.js'\n"),
      }),
      undefined,
    );
    assert.equal(
      missingScriptFinding(check, {
        command: ['node', 'bin/run.js'],
        cwd: '/copy',
        result: result("Error: Cannot find module '/copy/bin/run.js'\n", 0),
      }),
      undefined,
    );
  });
});
