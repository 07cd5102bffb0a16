import { spawn } from 'node:child_process';
import { findExecutable } from './executable.js';
import { INIT_STATUS_FD, initEnv, PID_INIT } from './pid-init.js';

/** `REDLINE_PID_NAMESPACE=off` runs programs without a PID namespace, for machines where it misbehaves. */
export const PID_NAMESPACE_VARIABLE = 'REDLINE_PID_NAMESPACE';
/** How long the probe may take before the namespace counts as unavailable. */
const PROBE_TIMEOUT_MS = 10_000;

/** The tools that can give a program a PID namespace, in the order they are tried. */
export type PidNamespaceTool = 'unshare' | 'bwrap';

/** Whether runProcess runs programs in a PID namespace here, with which tool, or why not. */
export type PidNamespace =
  { readonly available: true; readonly via: PidNamespaceTool } | { readonly available: false; readonly reason: string };

/** Wraps a program so that it runs under the init in a PID namespace of its own. */
export interface PidNamespaceLauncher {
  readonly via: PidNamespaceTool;
  /** The argv that runs `command` in `cwd` (absolute) in a fresh namespace, the init reporting on descriptor 3. */
  readonly argv: (command: readonly string[], cwd: string) => string[];
}

/**
 * util-linux: setpriv makes unshare die with redline, unshare's --kill-child takes the namespace with
 * it. Root keeps its real credentials (no user namespace, set-user-ID programs work); any other user
 * gets a user namespace mapping it to itself (util-linux 2.38+).
 */
function unshareLauncher(perl: string): PidNamespaceLauncher | string {
  const setpriv = findExecutable('setpriv');
  const unshare = findExecutable('unshare');
  if (setpriv === undefined || unshare === undefined) return 'unshare: util-linux setpriv and unshare are not installed';
  const user = process.getuid?.() === 0 ? [] : ['--user', '--map-current-user'];
  const prefix = [
    setpriv,
    '--pdeathsig',
    'KILL',
    '--',
    unshare,
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
    '--propagation',
    'slave',
  ];
  return { via: 'unshare', argv: (command) => [...prefix, ...user, '--', perl, '-e', PID_INIT, ...command] };
}

/**
 * bubblewrap without confinement: the whole file system as it is (devices included), a /proc of the
 * namespace's own. bwrap always sets no_new_privs and mounts nosuid, so set-user-ID programs do not
 * gain privileges; tried after unshare for that reason.
 */
function bwrapLauncher(perl: string): PidNamespaceLauncher | string {
  const bwrap = findExecutable('bwrap');
  if (bwrap === undefined) return 'bwrap: bubblewrap is not installed';
  const prefix = [bwrap, '--unshare-pid', '--die-with-parent', '--as-pid-1', '--dev-bind', '/', '/', '--proc', '/proc'];
  return { via: 'bwrap', argv: (command, cwd) => [...prefix, '--chdir', cwd, '--', perl, '-e', PID_INIT, ...command] };
}

const LAUNCHERS: Readonly<Record<PidNamespaceTool, (perl: string) => PidNamespaceLauncher | string>> = {
  unshare: unshareLauncher,
  bwrap: bwrapLauncher,
};

/** Starts `true` through `launcher`: undefined when the init reports it exited 0, else what went wrong. */
function probe(launcher: PidNamespaceLauncher): Promise<string | undefined> {
  return new Promise((resolve) => {
    const [file, ...args] = launcher.argv(['true'], '/');
    const child = spawn(file as string, args, {
      cwd: '/',
      env: initEnv(process.env),
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let status = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdio[INIT_STATUS_FD]?.on('data', (chunk: Buffer) => (status += chunk.toString('utf8')));
    // As in runProcess: an overdue timer waits for the rest of the loop's turn, so that a probe that ended
    // while this process stalled is read as it ended, not as silent.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          // Ended but its pipes still held (something it started): that group is ended too, without a complaint.
          if (child.exitCode === null && child.signalCode === null) stderr ||= `no answer within ${PROBE_TIMEOUT_MS} ms`;
          try {
            process.kill(-(child.pid as number), 'SIGKILL');
          } catch {
            // It ended meanwhile.
          }
        }),
      PROBE_TIMEOUT_MS,
    );
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(status === 'status 0\n' ? undefined : stderr.trim().split('\n').at(-1) || `exited with ${code}`);
    });
  });
}

/**
 * The first of `tools` that runs a program in a PID namespace on this machine (tried for real), or why
 * none does. Not cached: {@link pidNamespaceLauncher} is what runProcess asks.
 */
export async function findPidNamespace(tools: readonly PidNamespaceTool[] = ['unshare', 'bwrap']): Promise<PidNamespaceLauncher | string> {
  if (process.platform !== 'linux') return `PID namespaces need Linux, not ${process.platform}`;
  const perl = findExecutable('perl');
  if (perl === undefined) return 'perl is not installed (the init of the namespace is a Perl script)';
  const problems: string[] = [];
  for (const tool of tools) {
    const launcher = LAUNCHERS[tool](perl);
    if (typeof launcher === 'string') {
      problems.push(launcher);
      continue;
    }
    const problem = await probe(launcher);
    if (problem === undefined) return launcher;
    problems.push(`${tool}: ${problem}`);
  }
  return problems.join('; ');
}

let found: Promise<PidNamespaceLauncher | string> | undefined;

/**
 * The launcher runProcess wraps programs with, or why there is none: found once per process (the first
 * call starts a program to find out), unless `REDLINE_PID_NAMESPACE=off` (read at every call).
 */
export async function pidNamespaceLauncher(): Promise<PidNamespaceLauncher | string> {
  const setting = process.env[PID_NAMESPACE_VARIABLE];
  if (setting === 'off' || setting === '0') return `turned off by ${PID_NAMESPACE_VARIABLE}=${setting}`;
  found ??= findPidNamespace();
  return found;
}

/**
 * Whether programs run in a PID namespace here: what `run.started` records and the CLI's note says.
 *
 * @example
 * await pidNamespace(); // { available: true, via: 'unshare' }
 */
export async function pidNamespace(): Promise<PidNamespace> {
  const launcher = await pidNamespaceLauncher();
  return typeof launcher === 'string' ? { available: false, reason: launcher } : { available: true, via: launcher.via };
}
