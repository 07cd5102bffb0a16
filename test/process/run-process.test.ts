import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runProcess, type ProcessOptions } from '../../src/process/run-process.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { ends, isRunning } from './liveness.js';

const MB = 1024 * 1024;
const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function workdir(): Promise<string> {
  const dir = await tempWorkspace({});
  dirs.push(dir);
  return dir;
}

/**
 * Without a PID namespace: the cleanup by process group and environment marker, which machines without
 * namespaces rely on (test/process/pid-namespace.test.ts covers the namespace). The pids the programs
 * print are the host's here.
 */
function run(options: Partial<ProcessOptions> & Pick<ProcessOptions, 'command' | 'cwd'>) {
  return runProcess({ timeoutMs: 20_000, outputCap: 4 * MB, pidNamespace: false, ...options });
}

async function fileAppears(file: string): Promise<void> {
  while (!existsSync(file) || readFileSync(file, 'utf8') === '') await sleep(10);
}

/** A daemon: a double fork into a new session that writes its pid to `file`; waits for the pid, prints it. */
const daemon = (file: string): string =>
  `(setsid sh -c 'echo $$ > ${file}; exec sleep 40' &) & while [ ! -s ${file} ]; do sleep 0.01; done; cat ${file}`;

describe('runProcess without a PID namespace, and the processes a program leaves behind', () => {
  it('returns at once when a setsid child holds the pipes, and ends that child', async () => {
    const result = await run({ command: `setsid sh -c 'sleep 40' & echo $!`, cwd: await workdir() });
    assert.equal(result.exitCode, 0);
    assert.ok(result.durationMs < 2000, `took ${result.durationMs} ms`);
    const pid = Number(result.stdout.trim());
    assert.ok(pid > 0, `no pid in ${JSON.stringify(result.stdout)}`);
    assert.ok(await ends(pid), `setsid child ${pid} still runs`);
  });

  it('ends a double-forked daemon in its own session', async () => {
    const result = await run({ command: daemon('pid.txt'), cwd: await workdir() });
    assert.equal(result.exitCode, 0);
    assert.ok(result.durationMs < 2000, `took ${result.durationMs} ms`);
    const pid = Number(result.stdout.trim());
    assert.ok(pid > 0, `no pid in ${JSON.stringify(result.stdout)}`);
    assert.ok(await ends(pid), `daemon ${pid} still runs`);
  });

  it('ends the program and its daemon on timeout', async () => {
    const result = await run({ command: `${daemon('pid.txt')}; sleep 30`, cwd: await workdir(), timeoutMs: 1000 });
    assert.equal(result.killed, 'timeout');
    assert.equal(result.signal, 'SIGKILL');
    assert.ok(result.durationMs < 3000, `took ${result.durationMs} ms`);
    const pid = Number(result.stdout.trim());
    assert.ok(pid > 0, `no pid in ${JSON.stringify(result.stdout)}`);
    assert.ok(await ends(pid), `daemon ${pid} still runs`);
  });

  it('does not call a program that ended while the event loop stalled timed out', async () => {
    // The first output blocks this process (as a long synchronous step elsewhere in it would) until the
    // program has exited, well past its 100 ms timeout: when the loop resumes, the overdue timer comes
    // before the exit is read, and must not win.
    const started = performance.now();
    const stall = (chunk: Buffer): void => {
      const pid = chunk.toString('utf8').trim();
      const state = (): string => {
        try {
          return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] ?? '';
        } catch {
          return 'gone';
        }
      };
      while ((state() !== 'Z' && state() !== 'gone') || performance.now() - started < 800)
        if (performance.now() - started > 20_000) throw new Error(`program ${pid} did not exit within 20 s`);
    };
    const result = await run({
      command: 'echo $$; sleep 0.3; exit 3',
      cwd: await workdir(),
      timeoutMs: 100,
      onOutput: (_stream, chunk) => stall(chunk),
    });
    assert.deepEqual([result.exitCode, result.killed, result.stdout.trim() !== ''], [3, undefined, true]);
  });

  it('ends the program and its daemon on abort', async () => {
    const cwd = await workdir();
    const controller = new AbortController();
    const running = run({ command: `${daemon('pid.txt')}; sleep 30`, cwd, signal: controller.signal });
    await fileAppears(path.join(cwd, 'pid.txt'));
    controller.abort();
    const result = await running;
    assert.equal(result.killed, 'aborted');
    assert.ok(result.durationMs < 3000, `took ${result.durationMs} ms`);
    const pid = Number(readFileSync(path.join(cwd, 'pid.txt'), 'utf8'));
    assert.ok(await ends(pid), `daemon ${pid} still runs`);
  });

  it('ends the daemons of a program that floods its output', async () => {
    const result = await run({ command: `${daemon('pid.txt')}; yes`, cwd: await workdir(), outputCap: 64 * 1024 });
    assert.equal(result.killed, 'output_cap');
    assert.equal(result.stdout.length, 64 * 1024);
    assert.ok(await ends(Number(result.stdout.split('\n')[0])), 'daemon still runs');
  });

  it('collects everything the program printed before it exited', async () => {
    const result = await run({
      command: `setsid sleep 40 & head -c ${MB} /dev/zero | tr '\\0' o; head -c ${MB} /dev/zero | tr '\\0' e >&2`,
      cwd: await workdir(),
    });
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout, 'o'.repeat(MB));
    assert.equal(result.stderr, 'e'.repeat(MB));
  });

  it('returns after a short grace, with all output, when a descendant that cleared its environment holds the pipes', async () => {
    const cwd = await workdir();
    // `env -i` drops the marker and setsid leaves the group: the documented limit outside a sandbox.
    const result = await run({
      command: `env -i setsid sh -c 'echo $$ > escapee.txt; exec sleep 40' & head -c ${MB} /dev/zero | tr '\\0' o; while [ ! -s escapee.txt ]; do sleep 0.01; done`,
      cwd,
    });
    const escapee = Number(readFileSync(path.join(cwd, 'escapee.txt'), 'utf8'));
    try {
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdout.length, MB);
      assert.ok(result.durationMs < 2000, `took ${result.durationMs} ms`);
      assert.ok(isRunning(escapee), 'a process without the marker outside a sandbox is expected to survive');
    } finally {
      process.kill(escapee, 'SIGKILL');
    }
  });

  it('leaves unrelated processes and other calls alone', async () => {
    const bystander = spawn('sleep', ['40'], { stdio: 'ignore' });
    try {
      const cwd = await workdir();
      const [other, noisy] = await Promise.all([
        run({ command: 'sleep 0.5 & wait; echo done', cwd }),
        run({ command: `setsid sleep 40 & echo left`, cwd }),
      ]);
      assert.equal(noisy.stdout, 'left\n');
      assert.deepEqual([other.exitCode, other.killed, other.stdout], [0, undefined, 'done\n']);
      assert.ok(isRunning(bystander.pid as number), 'an unrelated process was killed');
    } finally {
      bystander.kill('SIGKILL');
    }
  });

  it('reports a program that cannot start', async () => {
    const result = await run({ command: ['/nonexistent/program'], cwd: await workdir() });
    assert.equal(result.spawnError, 'ENOENT');
    assert.equal(result.exitCode, null);
  });
});
