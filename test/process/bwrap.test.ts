import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bwrapArgv, findBwrap } from '../../src/process/bwrap.js';
import { runProcess, type ProcessOptions } from '../../src/process/run-process.js';
import type { BwrapSandbox } from '../../src/process/sandbox.js';
import { assertSandboxAvailable, sandboxProblem } from '../../src/process/sandbox-problem.js';
import { SandboxUnavailableError } from '../../src/errors/sandbox-unavailable-error.js';
import { ends, runningWithArg } from './liveness.js';
import { tempDir } from '../helpers/workspace.js';

const connect = new URL('../fixtures/process/connect.mjs', import.meta.url).pathname;
const noBwrap = existsSync('/usr/bin/bwrap') ? false : 'bubblewrap is not installed (/usr/bin/bwrap): apt-get install bubblewrap';
const missing: BwrapSandbox = { kind: 'bwrap', writable: [], network: false, bwrapPath: '/nonexistent/bwrap' };

describe('bwrapArgv', () => {
  it('binds writable directories over a read-only file system, and shares the network only on request', () => {
    const sandbox: BwrapSandbox = { kind: 'bwrap', writable: ['/tmp/work', '/srv/out'], network: false };
    const argv = bwrapArgv({ sandbox, cwd: '/tmp/work', command: ['make', 'test'], statusFd: 3 });
    assert.deepEqual(argv, [
      '--unshare-all',
      '--unshare-pid',
      '--die-with-parent',
      '--new-session',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--bind',
      '/tmp/work',
      '/tmp/work',
      '--bind',
      '/srv/out',
      '/srv/out',
      '--chdir',
      '/tmp/work',
      '--json-status-fd',
      '3',
      '--',
      'make',
      'test',
    ]);
    assert.ok(!argv.includes('--share-net'));
    assert.ok(bwrapArgv({ sandbox: { ...sandbox, network: true }, cwd: '/tmp/work', command: ['true'] }).includes('--share-net'));
  });

  it('mounts nothing over /tmp: what is there stays visible, read-only', () => {
    const argv = bwrapArgv({ sandbox: { kind: 'bwrap', writable: [], network: false }, cwd: '/tmp/repo', command: ['true'] });
    assert.ok(!argv.includes('--tmpfs'));
    assert.deepEqual(argv.slice(argv.indexOf('--proc') + 2, argv.indexOf('--chdir')), []);
  });

  it('rejects relative paths and an empty command', () => {
    const sandbox: BwrapSandbox = { kind: 'bwrap', writable: ['out'], network: false };
    assert.throws(() => bwrapArgv({ sandbox, cwd: '/tmp', command: ['true'] }), {
      name: 'TypeError',
      message: 'Expected an absolute path, got "out"',
    });
    assert.throws(() => bwrapArgv({ sandbox: { ...sandbox, writable: [] }, cwd: '/tmp', command: [] }), TypeError);
  });
});

describe('a missing bwrap', () => {
  it('is reported by runProcess as a spawn error, naming the package', async () => {
    const result = await runProcess({ command: 'true', cwd: os.tmpdir(), timeoutMs: 5000, outputCap: 1024, sandbox: missing });
    assert.equal(result.spawnError, 'bubblewrap (bwrap) is not installed at /nonexistent/bwrap: apt-get install bubblewrap');
    assert.equal(findBwrap('/nonexistent/bwrap'), undefined);
  });

  it('is reported before a run by sandboxProblem and assertSandboxAvailable', async () => {
    assert.equal(await sandboxProblem(missing), 'bubblewrap (bwrap) is not installed at /nonexistent/bwrap: apt-get install bubblewrap');
    await assert.rejects(assertSandboxAvailable(missing), (error: unknown) => {
      assert.ok(error instanceof SandboxUnavailableError);
      assert.deepEqual([error.code, error.kind], ['sandbox.unavailable', 'bwrap']);
      assert.match(error.message, /apt-get install bubblewrap/);
      return true;
    });
  });
});

describe('runProcess in a bwrap sandbox', { skip: noBwrap }, () => {
  let work: string;
  let outsideTmp: string;
  let outsideVar: string;
  let server: net.Server;
  let port: number;

  before(async () => {
    work = await tempDir('redline-sandbox-');
    // /tmp itself, whatever the suite's temporary directory is.
    outsideTmp = await mkdtemp('/tmp/redline-outside-');
    outsideVar = await mkdtemp('/var/tmp/redline-outside-');
    server = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  after(async () => {
    server.close();
    await Promise.all([work, outsideTmp, outsideVar].map((dir) => rm(dir, { recursive: true, force: true })));
  });

  const sandboxed = (command: ProcessOptions['command'], sandbox: Partial<BwrapSandbox> = {}) =>
    runProcess({
      command,
      cwd: work,
      timeoutMs: 20_000,
      outputCap: 1024 * 1024,
      sandbox: { kind: 'bwrap', writable: [work], network: false, ...sandbox },
    });

  it('can run here', async () => {
    assert.equal(await sandboxProblem({ kind: 'bwrap', writable: [], network: false }), undefined);
  });

  it('lets the program write its writable directory, and nothing else', async () => {
    const inside = await sandboxed('echo kept > kept.txt');
    assert.equal(inside.exitCode, 0, inside.stderr);
    assert.equal(await readFile(path.join(work, 'kept.txt'), 'utf8'), 'kept\n');

    // /tmp is visible, read-only, like the rest.
    const underTmp = await sandboxed(`echo lost > ${outsideTmp}/lost.txt`);
    assert.notEqual(underTmp.exitCode, 0);
    assert.match(underTmp.stderr, /Read-only file system/);
    assert.equal(existsSync(path.join(outsideTmp, 'lost.txt')), false);

    const readOnly = await sandboxed(`echo lost > ${outsideVar}/lost.txt`);
    assert.notEqual(readOnly.exitCode, 0);
    assert.match(readOnly.stderr, /Read-only file system/);
    assert.equal(existsSync(path.join(outsideVar, 'lost.txt')), false);

    // The private temporary directory is writable, and gone afterwards.
    const temporary = await sandboxed(`echo x > "$TMPDIR/x" && echo "$TMPDIR"`);
    assert.equal(temporary.exitCode, 0, temporary.stderr);
    assert.match(temporary.stdout, /redline-sandbox-tmp-/);
    assert.equal(existsSync(temporary.stdout.trim()), false);
  });

  it('runs in a read-only working directory under /tmp', async () => {
    const result = await runProcess({
      command: 'pwd; touch x',
      cwd: outsideTmp,
      timeoutMs: 20_000,
      outputCap: 1024,
      sandbox: { kind: 'bwrap', writable: [], network: false },
    });
    assert.equal(result.stdout, `${outsideTmp}\n`);
    assert.match(result.stderr, /Read-only file system/);
    assert.equal(existsSync(path.join(outsideTmp, 'x')), false);
  });

  it('has no network unless allowed', async () => {
    const offline = await sandboxed([process.execPath, connect, String(port)]);
    assert.equal(offline.exitCode, 1);
    assert.equal(offline.stdout.trim(), 'ECONNREFUSED');
    const online = await sandboxed([process.execPath, connect, String(port)], { network: true });
    assert.equal(online.exitCode, 0, online.stderr);
    assert.equal(online.stdout.trim(), 'connected');
  });

  it('ends every descendant, even one that cleared its environment', async () => {
    // The token names the processes on the host, where the sandbox's own pids mean nothing.
    const token = `redline-escapee-${randomUUID()}`;
    const result = await sandboxed(
      `setsid sh -c 'touch a; sleep 40; : ${token}' & env -i setsid sh -c 'touch b; sleep 40; : ${token}' & ` +
        'while [ ! -e a ] || [ ! -e b ]; do sleep 0.01; done; echo started',
    );
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout, 'started\n');
    assert.ok(result.durationMs < 2000, `took ${result.durationMs} ms`);
    const left = runningWithArg(token);
    const ended = await Promise.all(left.map((pid) => ends(pid)));
    assert.ok(ended.every(Boolean), `still running: ${left.join(', ')}`);
  });

  it('passes the exit code through, and reports a sandbox that cannot start as a spawn error', async () => {
    assert.deepEqual(await sandboxed('exit 3').then((result) => [result.exitCode, result.spawnError]), [3, undefined]);
    const unknown = await sandboxed(['/nonexistent/program']);
    assert.match(unknown.spawnError ?? '', /^the sandbox could not start the program: bwrap: execvp \/nonexistent\/program/);
    const badDir = await sandboxed('true', { writable: ['/nonexistent/dir'] });
    assert.match(badDir.spawnError ?? '', /Can't find source path \/nonexistent\/dir/);
  });

  it('ends a sandboxed program on timeout', async () => {
    const result = await runProcess({
      command: 'sleep 30',
      cwd: work,
      timeoutMs: 300,
      outputCap: 1024,
      sandbox: { kind: 'bwrap', writable: [work], network: false },
    });
    assert.equal(result.killed, 'timeout');
    assert.equal(result.spawnError, undefined);
    assert.ok(result.durationMs < 2000, `took ${result.durationMs} ms`);
  });
});
