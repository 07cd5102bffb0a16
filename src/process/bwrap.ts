import path from 'node:path';
import { findExecutable } from './executable.js';
import type { BwrapSandbox } from './sandbox.js';

/** What to tell the user when bwrap cannot be found. */
export function bwrapMissing(bwrapPath?: string): string {
  const where = bwrapPath === undefined ? '' : ` at ${bwrapPath}`;
  return `bubblewrap (bwrap) is not installed${where}: apt-get install bubblewrap`;
}

/**
 * The bwrap executable to run: `bwrapPath` when given, else /usr/bin/bwrap, else `bwrap` on PATH;
 * undefined when there is none.
 */
export function findBwrap(bwrapPath?: string): string | undefined {
  return findExecutable('bwrap', bwrapPath);
}

export interface BwrapArgvOptions {
  readonly sandbox: BwrapSandbox;
  /** Absolute working directory of the program inside the sandbox. */
  readonly cwd: string;
  /** The program and its arguments. */
  readonly command: readonly string[];
  /** A descriptor bwrap reports the program's exit status on, which tells a failed setup from a failed program. */
  readonly statusFd?: number;
}

/**
 * The arguments to bwrap that run `command` in `cwd` inside `sandbox`: the whole file system read-only,
 * its own /dev and /proc, then the writable directories bound over it.
 *
 * @example
 * bwrapArgv({ sandbox: { kind: 'bwrap', writable: ['/tmp/work'], network: false }, cwd: '/tmp/work', command: ['make'] });
 * // ['--unshare-all', '--unshare-pid', '--die-with-parent', '--new-session', '--ro-bind', '/', '/', '--dev', '/dev',
 * //  '--proc', '/proc', '--bind', '/tmp/work', '/tmp/work', '--chdir', '/tmp/work', '--', 'make']
 */
export function bwrapArgv({ sandbox, cwd, command, statusFd }: BwrapArgvOptions): string[] {
  for (const dir of [cwd, ...sandbox.writable]) {
    if (!path.isAbsolute(dir)) throw new TypeError(`Expected an absolute path, got ${JSON.stringify(dir)}`);
  }
  if (command.length === 0) throw new TypeError('Expected a command, got an empty argv');
  const argv = [
    // New user (when not root), PID, IPC, UTS, cgroup and network namespaces. When the program exits,
    // its PID namespace ends every descendant; --die-with-parent does the same when redline dies.
    '--unshare-all',
    // Already part of --unshare-all; named because ending every descendant relies on it.
    '--unshare-pid',
    ...(sandbox.network ? ['--share-net'] : []),
    '--die-with-parent',
    // A new session: the program cannot push input into redline's terminal (TIOCSTI).
    '--new-session',
    // Everything, /tmp included, is visible read-only (programs and scripts kept in /tmp run); a private
    // temporary directory is among the writable ones and named by TMPDIR (see runProcess).
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
  for (const dir of sandbox.writable) argv.push('--bind', dir, dir);
  argv.push('--chdir', cwd);
  if (statusFd !== undefined) argv.push('--json-status-fd', String(statusFd));
  argv.push('--', ...command);
  return argv;
}
