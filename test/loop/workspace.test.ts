import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { admitRun } from '../../src/analysis/admit.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission, type Mission } from '../../src/mission/mission.js';
import { agentProposer } from '../../src/proposers/agent-proposer.js';
import { commandProposer } from '../../src/proposers/command-proposer.js';
import { PID_NAMESPACE_VARIABLE } from '../../src/process/pid-namespace.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { tempWorkspace, tree, tempDir } from '../helpers/workspace.js';
import { dataOf } from '../helpers/records.js';
import { noneLeft, token } from '../process/liveness.js';

const AGENTS = path.resolve(import.meta.dirname, '../fixtures/agents');
const scratchDir = await tempDir('redline-scratch-');
after(() => rm(scratchDir, { recursive: true, force: true }));

const MATH = {
  'src/math.js': 'export const add = (a, b) => a - b;\n',
  'src/obsolete.js': 'export {};\n',
  'test/math.test.js':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/math.js';\ntest('add', () => assert.equal(add(2, 3), 5));\n",
  'package.json': '{"type":"module"}\n',
};
// The test file runs in one node process (`node --test` would start a second one for it): same TAP, same exit code.
const TESTS = { name: 'tests', kind: 'test-runner', format: 'tap', command: 'node --test-reporter=tap test/math.test.js' } as const;
/** A check as cheap as a shell builtin, for cases about what reaches the copy rather than about the test runner. */
const FIXED = { name: 'fixed', kind: 'command', command: 'grep -q "a + b" src/math.js' } as const;

function mission(dir: string, extra: Record<string, unknown> = {}): Mission {
  return defineMission({
    id: 'ws',
    goal: 'make the tests pass',
    workspace: dir,
    scope: ['src/**'],
    budgets: { maxAttempts: 3 },
    checks: [TESTS],
    stopPolicy: { guards: [] },
    ...extra,
  });
}

/** Whether a process is gone (or a zombie waiting to be reaped) within 2 s. */
async function gone(pid: number): Promise<boolean> {
  for (let tries = 0; tries < 40; tries += 1) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined || / Z /.test(stat.slice(stat.lastIndexOf(')')))) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

async function sealOf(ledger: MemoryLedger, runId: string): Promise<Record<string, unknown>> {
  return (await ledger.records(runId)).at(-1)?.data as Record<string, unknown>;
}

describe('the run snapshot', () => {
  it('a proposer that edits the live workspace cannot make a run verified; the seal records the change', async () => {
    const dir = await tempWorkspace(MATH);
    const ledger = new MemoryLedger();
    // The attack: rewrite the failing test in the live workspace and propose nothing.
    const cheat = `printf '%s\\n' "import { test } from 'node:test'; test('ok', () => {});" > test/math.test.js && printf '{"files":{}}'`;
    const result = await runMission({ mission: mission(dir), proposer: commandProposer({ command: cheat, cwd: dir }), ledger, scratchDir });
    assert.equal(result.verification, 'unverified');
    assert.equal(result.outcome, 'failed_with_evidence');
    assert.ok(
      result.findings.some((item) => item.reasonCodes.includes('test.failed:add')),
      'the checks kept seeing the snapshot',
    );
    assert.deepEqual(result.workspaceChanged, ['test/math.test.js']);
    const seal = await sealOf(ledger, result.runId);
    assert.deepEqual(seal.evidence, [{ code: 'workspace.changed_during_run', count: 1, paths: ['test/math.test.js'] }]);
    const started = dataOf(await ledger.records(result.runId), 'run.started').workspace;
    assert.equal((seal.baseline as { manifest: string }).manifest, started?.manifest);
  });

  it('checks writing into node_modules (at any depth) leave the user workspace byte-identical; the next check set sees none of it', async () => {
    const dir = await tempWorkspace({
      ...MATH,
      'node_modules/dep/index.js': 'module.exports = 1;\n',
      'packages/a/node_modules/inner/index.js': 'module.exports = 2;\n',
    });
    const before = await tree(dir);
    // In order: what the previous check set did must be undone; then this set dirties the copy again.
    const untouched = {
      name: 'untouched',
      kind: 'command',
      command:
        'grep -q "module.exports = 1" node_modules/dep/index.js && test ! -e node_modules/.cache && test -f packages/a/node_modules/inner/index.js',
    } as const;
    const writer = {
      name: 'writer',
      kind: 'command',
      command:
        'mkdir -p node_modules/.cache/nyc && echo x > node_modules/.cache/nyc/a.json && echo hacked > node_modules/dep/index.js && rm packages/a/node_modules/inner/index.js',
      // Rewriting and removing snapshot files would void it (and the checks after it) undeclared.
      outputs: ['**/node_modules/**'],
    } as const;
    const fixes = [{ 'src/math.js': 'export const add = (a, b) => a * b;\n' }, { 'src/math.js': 'export const add = (a, b) => a + b;\n' }];
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: mission(dir, { checks: [untouched, writer, TESTS] }),
      proposer: functionProposer(({ attempt }) => ({ files: fixes[attempt - 1] })),
      ledger,
      scratchDir,
    });
    assert.deepEqual([result.outcome, result.verification, result.attempts], ['complete', 'verified', 2]);
    for (const record of await ledger.records(result.runId)) {
      const findings = record.type === 'attempt' || record.type === 'baseline' ? (record.data.findings ?? []) : [];
      assert.ok(
        findings.filter((item) => item.check === 'untouched').every((item) => item.status === 'pass'),
        `${record.type} ${JSON.stringify(findings)}`,
      );
    }
    assert.deepEqual(await tree(dir), before);
  });

  it('refuses a proposal naming node_modules before writing it anywhere (scope first)', async () => {
    const dir = await tempWorkspace({ ...MATH, 'node_modules/dep/index.js': 'module.exports = 1;\n' });
    const before = await tree(dir);
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: mission(dir),
      proposer: functionProposer(() => ({ files: { 'node_modules/dep/index.js': null } })),
      ledger,
      scratchDir,
    });
    assert.deepEqual([result.outcome, result.stopReason], ['blocked', 'scope_violation']);
    const attempt = dataOf(await ledger.records(result.runId), 'attempt').findings ?? [];
    assert.deepEqual(
      attempt.map((item) => `${item.check}:${item.status}:${item.skipReason ?? ''}`),
      ['scope:fail:', 'tests:skipped:scope_violation'],
    );
    assert.deepEqual(await tree(dir), before);
  });

  it('refuses candidate paths through symlinks as proposer.bad_path, and the link targets stay untouched', async () => {
    const outside = await tempWorkspace({ 'secret.txt': 'secret\n', 'secretdir/keep.txt': 'keep\n' });
    const dir = await tempWorkspace(MATH);
    await symlink(path.join(outside, 'secret.txt'), path.join(dir, 'src/evil.js'));
    await symlink(path.join(outside, 'secretdir'), path.join(dir, 'src/linkdir'));
    await symlink('..', path.join(dir, 'src/up'));
    const before = { outside: await tree(outside), dir: await tree(dir) };
    const attempts: Record<string, string | null>[] = [
      { 'src/evil.js': 'pwned' },
      { 'src/linkdir/keep.txt': null },
      { 'src/linkdir/new.txt': 'x' },
      { 'src/up/src/math.js': 'x' },
      { 'src/a\0b': 'x' },
      { src: 'x' },
    ];
    for (const files of attempts) {
      const ledger = new MemoryLedger();
      const result = await runMission({
        mission: mission(dir, { budgets: { maxAttempts: 1 }, checks: [FIXED] }),
        proposer: functionProposer(() => ({ files })),
        ledger,
        scratchDir,
      });
      const attempt = dataOf(await ledger.records(result.runId), 'attempt').findings ?? [];
      assert.deepEqual(attempt[0]?.reasonCodes, ['proposer.bad_path'], JSON.stringify(files));
      assert.notEqual(result.stopReason, 'runtime_error');
    }
    assert.deepEqual({ outside: await tree(outside), dir: await tree(dir) }, before);
  });

  it('refuses the file system root as a workspace', async () => {
    await assert.rejects(
      runMission({ mission: defineMission({ id: 'root', goal: 'g', workspace: '/' }), proposer: functionProposer(() => ({})), scratchDir }),
      /root of the file system/,
    );
  });

  it('a check that leaves a setsid daemon behind neither delays the run nor outlives it', async () => {
    const dir = await tempWorkspace({ ...MATH, 'src/math.js': 'export const add = (a, b) => a + b;\n' });
    // Found by its command line: in a PID namespace the pid the check could print is not the host's.
    const sleep = token();
    const daemon = {
      name: 'daemon',
      kind: 'command',
      command: `setsid sh -c 'exec sleep ${sleep}' > /dev/null 2>&1 & exit 0`,
    } as const;
    const started = performance.now();
    const result = await runMission({
      mission: mission(dir, { checks: [daemon, TESTS] }),
      proposer: functionProposer(() => ({})),
      ledger: new MemoryLedger(),
      scratchDir,
    });
    assert.equal(result.outcome, 'complete_noop');
    assert.ok(performance.now() - started < 10_000, 'the run did not wait for the daemon');
    assert.ok(await noneLeft(sleep), 'the daemon outlived the run');
  });

  it('removes the run directory at the seal', async () => {
    const dir = await tempWorkspace({ ...MATH, 'src/math.js': 'export const add = (a, b) => a + b;\n' });
    const result = await runMission({
      mission: mission(dir),
      proposer: functionProposer(() => ({})),
      ledger: new MemoryLedger(),
      scratchDir,
    });
    assert.equal(existsSync(path.join(scratchDir, 'redline-runs', result.runId)), false);
  });
});

describe('agent proposer', () => {
  it('an agent that edits files in place with sed fixes a failing test on attempt 2; the live workspace is untouched', async () => {
    const dir = await tempWorkspace(MATH);
    const before = await tree(dir);
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: mission(dir, { scope: ['src/**'] }),
      proposer: agentProposer({ command: path.join(AGENTS, 'sed-agent.sh'), reportsTokens: true }),
      ledger,
      scratchDir,
    });
    assert.deepEqual([result.outcome, result.verification, result.attempts], ['complete', 'verified', 2]);
    assert.deepEqual(result.candidate.files, { 'src/math.js': 'export const add = (a, b) => a + b;\n', 'src/obsolete.js': null });
    assert.equal(result.counters.inputTokens, 200);
    assert.deepEqual(await tree(dir), before);
    assert.equal(result.workspaceChanged, undefined);
    // Admission as a patch against the workspace, applied by git to a clean copy of it.
    const patch = path.join(scratchDir, `agent-${result.runId}.patch`);
    await admitRun({ ledger, runId: result.runId, patch });
    const clean = await mkdtemp(path.join(scratchDir, 'clean-'));
    await cp(dir, clean, { recursive: true });
    execFileSync('git', ['apply', '--check', patch], { cwd: clean });
    execFileSync('git', ['apply', patch], { cwd: clean });
    assert.equal(await readFile(path.join(clean, 'src/math.js'), 'utf8'), 'export const add = (a, b) => a + b;\n');
    assert.equal(existsSync(path.join(clean, 'src/obsolete.js')), false);
    assert.deepEqual(await tree(dir), before);
  });

  it('a daemon the agent leaves behind, rewriting the check copy while the checks run, cannot make the run verified', async () => {
    const dir = await tempWorkspace(MATH);
    const base = await mkdtemp(path.join(scratchDir, 'daemon-'));
    const pidFile = path.join(base, 'daemon.pid');
    const script = path.join(base, 'daemon.cjs');
    // Every millisecond for five seconds: the check copy's test, found next to the agent's copy (its working
    // directory), rewritten into one that passes. It never creates a file.
    await writeFile(
      script,
      `const fs = require('node:fs');
      fs.writeFileSync(process.argv[2], String(process.pid));
      const passing = "import { test } from 'node:test';\\ntest('add', () => {});\\n";
      setInterval(() => {
        try {
          const fd = fs.openSync('../check/test/math.test.js', 'r+');
          fs.ftruncateSync(fd);
          fs.writeSync(fd, passing, 0);
          fs.closeSync(fd);
        } catch {}
      }, 1);
      setTimeout(() => process.exit(0), 5000);`,
    );
    // A wrong fix, and a daemon in a session of its own (out of the agent's process group) without redline's
    // environment marker: without a PID namespace, as on a machine that has none, nothing ends it when the
    // agent exits (in one, it ends with the agent: test/process/pid-namespace.test.ts).
    process.env[PID_NAMESPACE_VARIABLE] = 'off';
    const agent = `/usr/bin/env -i /usr/bin/setsid ${process.execPath} ${script} ${pidFile} </dev/null >/dev/null 2>&1 & sleep 0.5; echo 'export const add = (a, b) => a * b;' > src/math.js`;
    try {
      const ledger = new MemoryLedger();
      const result = await runMission({
        mission: mission(dir, { budgets: { maxAttempts: 1 } }),
        proposer: agentProposer({ command: agent }),
        ledger,
        scratchDir,
      });
      const pid = Number(await readFile(pidFile, 'utf8'));
      assert.doesNotThrow(() => process.kill(pid, 0), 'the daemon outlived the attempt');
      assert.deepEqual([result.outcome, result.verification], ['failed_with_evidence', 'unverified']);
      const tests = (dataOf(await ledger.records(result.runId), 'attempt').findings ?? []).filter((item) => item.check === 'tests');
      assert.deepEqual(
        tests.map((item) => [item.status, item.reasonCodes.join()]),
        [['error', 'check.inputs_changed']],
      );
      assert.match(tests[0]?.message ?? '', /: test\/math\.test\.js \(/);
    } finally {
      delete process.env[PID_NAMESPACE_VARIABLE];
      const pid = Number(await readFile(pidFile, 'utf8').catch(() => '0'));
      if (pid > 0) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // It already ended.
        }
        assert.ok(await gone(pid), `the daemon ${pid} is still running`);
      }
      await rm(base, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an agent that fails, times out or creates a symlink gets a proposer error, never a crashed run', async () => {
    const dir = await tempWorkspace(MATH);
    // Only the sleeping agent is meant to reach its timeout: the others get one no loaded machine reaches.
    for (const [command, code] of [
      ['exit 3', 'proposer.exit_nonzero'],
      ['sleep 30', 'proposer.timeout'],
      ['ln -s /etc/passwd src/passwd.js', 'proposer.bad_output'],
      ['printf "\\377\\376" > src/bin.js', 'proposer.bad_output'],
      [
        'mkdir -p .git && echo x > .git/HEAD && echo "export const add = (a, b) => a + b;" > src/math.js && echo y > outside.txt',
        undefined,
      ],
    ] as const) {
      const ledger = new MemoryLedger();
      const result = await runMission({
        mission: mission(dir, { budgets: { maxAttempts: 1 }, checks: [FIXED] }),
        proposer: agentProposer({ command, timeoutMs: code === 'proposer.timeout' ? 500 : 30_000 }),
        ledger,
        scratchDir,
      });
      const findings = dataOf(await ledger.records(result.runId), 'attempt').findings ?? [];
      if (code === undefined) {
        // .git is ignored; outside.txt is out of scope: the run blocks on scope, the ignored path is not proposed.
        assert.deepEqual(Object.keys(result.candidate.files), ['outside.txt', 'src/math.js']);
        assert.equal(result.stopReason, 'scope_violation');
      } else assert.deepEqual(findings[0]?.reasonCodes, [code], command);
    }
    assert.deepEqual(readdirSync(dir).sort(), ['package.json', 'src', 'test']);
  });
});

describe('sandbox: bwrap', { skip: existsSync('/usr/bin/bwrap') ? false : 'bubblewrap is not installed (/usr/bin/bwrap)' }, () => {
  it('confines the agent and the checks to their copies: a write outside fails, the live workspace stays read-only', async () => {
    const dir = await tempWorkspace(MATH);
    const outside = await mkdtemp(path.join(scratchDir, 'outside-'));
    const before = await tree(dir);
    const escape = { name: 'escape', kind: 'command', required: false, command: `echo x > ${outside}/from-check.txt` } as const;
    // The agent tries to write outside its copy and into the live workspace, then does its job.
    const agent = `(echo y > ${outside}/from-agent.txt; echo z > ${dir}/src/live.js) 2>/dev/null; ${path.join(AGENTS, 'sed-agent.sh')}`;
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: mission(dir, { sandbox: 'bwrap', checks: [escape, TESTS] }),
      proposer: agentProposer({ command: agent }),
      ledger,
      scratchDir,
    });
    assert.deepEqual([result.outcome, result.verification, result.attempts], ['complete', 'verified', 2]);
    assert.deepEqual(readdirSync(outside), []);
    assert.deepEqual(await tree(dir), before);
    const started = dataOf(await ledger.records(result.runId), 'run.started').sandbox;
    assert.equal(started, 'bwrap');
    const escapeFindings = (await ledger.records(result.runId)).flatMap((record) =>
      (record.type === 'attempt' || record.type === 'baseline' ? (record.data.findings ?? []) : []).filter(
        (item) => item.check === 'escape',
      ),
    );
    assert.ok(escapeFindings.length > 0 && escapeFindings.every((item) => item.status === 'fail'), JSON.stringify(escapeFindings));
  });
});

describe('agent usage', () => {
  it('charges what a failed agent attempt reported spending', async () => {
    const dir = await tempWorkspace(MATH);
    const result = await runMission({
      mission: mission(dir, { budgets: { maxAttempts: 2, maxTokens: 1000 } }),
      proposer: agentProposer({
        command: 'printf \'{"inputTokens":300,"outputTokens":50}\' > "$REDLINE_USAGE_FILE"; exit 1',
        reportsTokens: true,
      }),
      ledger: new MemoryLedger(),
      scratchDir,
    });
    assert.deepEqual([result.counters.inputTokens, result.counters.outputTokens], [600, 100]);
  });
});

describe('test reports', () => {
  it('a JUnit report left in the workspace does not pass for a command that writes none', async () => {
    const junit = '<testsuites><testsuite name="s" tests="1"><testcase name="old" classname="s"/></testsuite></testsuites>';
    const dir = await tempWorkspace({ ...MATH, 'reports/junit.xml': junit });
    // The check removes its report before it runs: a snapshot file it declares as its output.
    const check = {
      name: 'junit',
      kind: 'test-runner',
      format: 'junit',
      reportFile: 'reports/junit.xml',
      outputs: ['reports/junit.xml'],
      command: 'true',
    } as const;
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: mission(dir, { checks: [check], budgets: { maxAttempts: 1 } }),
      proposer: functionProposer(() => ({ files: { 'src/math.js': 'x\n' } })),
      ledger,
      scratchDir,
    });
    assert.notEqual(result.verification, 'verified');
    const baseline = dataOf(await ledger.records(result.runId), 'baseline').findings ?? [];
    assert.deepEqual(baseline.find((item) => item.check === 'junit')?.reasonCodes, ['report.missing']);
  });
});
