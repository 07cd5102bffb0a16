import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { initEnv, initReport, INIT_STATUS_FD } from '../../src/process/pid-init.js';
import {
  findPidNamespace,
  PID_NAMESPACE_VARIABLE,
  pidNamespace,
  type PidNamespaceLauncher,
  type PidNamespaceTool,
} from '../../src/process/pid-namespace.js';
import { runProcess, type ProcessOptions, type ProcessResult } from '../../src/process/run-process.js';
import { tempDir } from '../helpers/workspace.js';
import { allStarted, eventually, leaveBehind, noneLeft, runningWithArg, token } from './liveness.js';

describe('the init of a PID namespace', () => {
  it("reads the program's wait status as spawn reports it", () => {
    assert.deepEqual(initReport('status 0\n'), { exitCode: 0, signal: null });
    assert.deepEqual(initReport('status 768\n'), { exitCode: 3, signal: null });
    assert.deepEqual(initReport('status 11\n'), { exitCode: null, signal: 'SIGSEGV' });
    // Core dumped (0x80) is not part of the signal.
    assert.deepEqual(initReport('status 134\n'), { exitCode: null, signal: 'SIGABRT' });
    assert.deepEqual(initReport('exec 2\nstatus 32512\n'), { spawnError: 'ENOENT' });
    assert.deepEqual(initReport('exec 13\nstatus 32512\n'), { spawnError: 'EACCES' });
    assert.equal(initReport(''), undefined);
  });

  it("hands Perl's own variables past the init under another name, and turns its locale warning off", () => {
    assert.deepEqual(initEnv({ PATH: '/bin', PERL5OPT: '-d', PERL_BADLANG: '1' }), {
      PATH: '/bin',
      REDLINE_PERL_PERL5OPT: '-d',
      REDLINE_PERL_PERL_BADLANG: '1',
      PERL_BADLANG: '0',
    });
  });
});

/** Runs `command` through `launcher` to its end: what it printed, and the init's report. */
function spawnIn(launcher: PidNamespaceLauncher, command: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const [file, ...args] = launcher.argv(command, cwd);
  const child = spawn(file as string, args, { cwd, env: initEnv(env), stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  const text = { stdout: '', stderr: '', status: '' };
  child.stdout?.on('data', (chunk: Buffer) => (text.stdout += String(chunk)));
  child.stderr?.on('data', (chunk: Buffer) => (text.stderr += String(chunk)));
  child.stdio[INIT_STATUS_FD]?.on('data', (chunk: Buffer) => (text.status += String(chunk)));
  return new Promise<typeof text>((resolve) => child.on('close', () => resolve(text)));
}

for (const tool of ['unshare', 'bwrap'] satisfies PidNamespaceTool[]) {
  const launcher = await findPidNamespace([tool]);
  describe(`a PID namespace through ${tool}`, { skip: typeof launcher === 'string' ? launcher : false }, () => {
    const through = launcher as PidNamespaceLauncher;

    it('runs the program as pid 2 under the init, in its directory, as its user, seeing only its own processes', async () => {
      const cwd = await tempDir();
      const { stdout, stderr, status } = await spawnIn(
        through,
        ['sh', '-c', 'echo $$; pwd; id -u; set -- /proc/[0-9]*; echo $#; touch made'],
        cwd,
      );
      assert.equal(stderr, '');
      const [pid, dir, uid, processes] = stdout.trim().split('\n');
      assert.deepEqual([pid, dir, uid], ['2', cwd, String(process.getuid?.())]);
      // The init and sh (which lists /proc itself: no other process races the count).
      assert.equal(processes, '2');
      assert.deepEqual(initReport(status), { exitCode: 0, signal: null });
    });

    it("reports the program's own exit, its signal (even one it sent itself) and a program that cannot start", async () => {
      const cwd = await tempDir();
      assert.deepEqual(initReport((await spawnIn(through, ['sh', '-c', 'exit 3'], cwd)).status), { exitCode: 3, signal: null });
      assert.deepEqual(initReport((await spawnIn(through, ['sh', '-c', 'kill -TERM $$; sleep 5'], cwd)).status), {
        exitCode: null,
        signal: 'SIGTERM',
      });
      assert.deepEqual(initReport((await spawnIn(through, ['/nonexistent/program'], cwd)).status), { spawnError: 'ENOENT' });
    });

    it("gives the program Perl's variables back, and prints nothing of its own for a locale that is not installed", async () => {
      const env = { ...process.env, PERL5OPT: '-d', LC_ALL: 'xx_XX.UTF-8' };
      const { stdout, stderr } = await spawnIn(
        through,
        ['sh', '-c', 'echo "$PERL5OPT"; echo "${PERL_BADLANG-unset}"'],
        await tempDir(),
        env,
      );
      assert.deepEqual([stdout, stderr], ['-d\nunset\n', '']);
    });

    it('ends every descendant when the program exits', async () => {
      const sleep = token();
      const { status } = await spawnIn(through, ['sh', '-c', leaveBehind(sleep)], await tempDir());
      assert.deepEqual(initReport(status), { exitCode: 0, signal: null });
      assert.ok(await noneLeft(sleep), `still running: ${runningWithArg(sleep).join(', ')}`);
    });

    it('ends every process in it when its parent (redline) is killed with SIGKILL', async () => {
      const sleep = token();
      const cwd = await tempDir();
      const [file, ...args] = through.argv(['sh', '-c', `${leaveBehind(sleep)}; exec sleep ${sleep}`], cwd);
      // A stand-in for redline: it starts the namespace and lives until killed.
      const parent = spawn(
        process.execPath,
        [
          '-e',
          `require('node:child_process').spawn(${JSON.stringify(file)}, ${JSON.stringify(args)}, { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] }); setInterval(() => {}, 1000);`,
        ],
        { cwd, env: initEnv(process.env), stdio: 'ignore' },
      );
      try {
        assert.ok(await eventually(() => allStarted(cwd), 10_000), 'the processes did not start');
        parent.kill('SIGKILL');
        assert.ok(await noneLeft(sleep), `still running: ${runningWithArg(sleep).join(', ')}`);
      } finally {
        parent.kill('SIGKILL');
      }
    });
  });
}

const here = await pidNamespace();

describe('runProcess in a PID namespace', { skip: here.available ? false : here.reason }, () => {
  const run = (options: Partial<ProcessOptions> & Pick<ProcessOptions, 'command' | 'cwd'>): Promise<ProcessResult> =>
    runProcess({ timeoutMs: 20_000, outputCap: 1024 * 1024, ...options });

  it('leaves nothing of an agent-like command running: env -i setsid, nohup and setsid children all end with it', async () => {
    const sleep = token();
    const result = await run({ command: `${leaveBehind(sleep)}; echo done`, cwd: await tempDir() });
    assert.deepEqual([result.exitCode, result.stdout, result.stderr], [0, 'done\n', '']);
    assert.ok(result.durationMs < 5000, `took ${result.durationMs} ms`);
    assert.ok(await noneLeft(sleep), `still running: ${runningWithArg(sleep).join(', ')}`);
  });

  it('ends every descendant on timeout, abort and output cap', async () => {
    const timeout = token();
    const timedOut = await run({ command: `${leaveBehind(timeout)}; sleep 30`, cwd: await tempDir(), timeoutMs: 1000 });
    assert.deepEqual([timedOut.killed, timedOut.signal], ['timeout', 'SIGKILL']);
    assert.ok(await noneLeft(timeout), 'left running after a timeout');

    const abort = token();
    const controller = new AbortController();
    const cwd = await tempDir();
    const running = run({ command: `${leaveBehind(abort)}; sleep 30`, cwd, signal: controller.signal });
    assert.ok(await eventually(() => allStarted(cwd), 10_000), 'the processes did not start');
    controller.abort();
    assert.equal((await running).killed, 'aborted');
    assert.ok(await noneLeft(abort), 'left running after an abort');

    const flood = token();
    const flooded = await run({ command: `${leaveBehind(flood)}; yes`, cwd: await tempDir(), outputCap: 64 * 1024 });
    assert.deepEqual([flooded.killed, flooded.stdout.length], ['output_cap', 64 * 1024]);
    assert.ok(await noneLeft(flood), 'left running after the output cap');
  });

  it('reports exit codes, signals, output, input and failures to start as without a namespace', async () => {
    const cwd = await tempDir();
    await writeFile(path.join(cwd, 'data.txt'), 'not a program\n');
    await chmod(path.join(cwd, 'data.txt'), 0o644);
    const cases: Partial<ProcessOptions>[] = [
      { command: 'echo out; echo err >&2; exit 3' },
      { command: 'kill -TERM $$; sleep 5' },
      { command: 'kill -SEGV $$' },
      { command: 'tr a-z A-Z', input: 'hello' },
      { command: 'pwd; printf %s "$ONLY_HERE"', env: { PATH: process.env.PATH, ONLY_HERE: 'yes' } },
      { command: ['/nonexistent/program'] },
      { command: [path.join(cwd, 'data.txt')] },
    ];
    for (const options of cases) {
      const plain = await run({ command: 'true', cwd, pidNamespace: false, ...options });
      const namespaced = await run({ command: 'true', cwd, ...options });
      const seen = ({ exitCode, signal, stdout, stderr, killed, spawnError }: ProcessResult) => ({
        exitCode,
        signal,
        stdout,
        stderr,
        killed,
        spawnError,
      });
      assert.deepEqual(seen(namespaced), seen(plain), JSON.stringify(options.command));
    }
  });

  it(`falls back to the marker with ${PID_NAMESPACE_VARIABLE}=off`, async () => {
    process.env[PID_NAMESPACE_VARIABLE] = 'off';
    try {
      assert.deepEqual(await pidNamespace(), { available: false, reason: `turned off by ${PID_NAMESPACE_VARIABLE}=off` });
      const result = await run({ command: 'echo $$', cwd: await tempDir() });
      assert.notEqual(result.stdout, '2\n', 'the program ran in a namespace');
    } finally {
      delete process.env[PID_NAMESPACE_VARIABLE];
    }
    assert.deepEqual(await pidNamespace(), here);
  });
});
