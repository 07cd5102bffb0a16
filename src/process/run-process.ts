import { spawn, type StdioPipe } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { bwrapArgv, bwrapMissing, findBwrap } from './bwrap.js';
import { setLongTimeout } from './long-timeout.js';
import { processTemporary } from './process-temporary.js';
import { INIT_STATUS_FD, initEnv, initReport } from './pid-init.js';
import { pidNamespaceLauncher, type PidNamespaceLauncher } from './pid-namespace.js';
import { newProcessTag, taggedEnv } from './process-tag.js';
import type { Sandbox } from './sandbox.js';
import { canFindTagged, killTagged } from './tagged-processes.js';

/**
 * How long the output pipes may stay open once the program has exited: ample to drain what it wrote,
 * short enough that a descendant holding them (one that escaped every kill) cannot hold the result.
 */
const PIPE_GRACE_MS = 150;
/** bwrap, or the init of a PID namespace, reports the program's exit status on the child's fourth pipe. */
const STATUS_FD = INIT_STATUS_FD;
/** Linux shows every process's environment, so descendants that left the group can still be found. */
const findsDescendants = canFindTagged();

export interface ProcessOptions {
  /** argv array, or a string run by `/bin/sh -c`. */
  readonly command: string | readonly string[];
  readonly cwd: string;
  /** Written to the process's stdin, which is then closed. */
  readonly input?: string;
  readonly timeoutMs: number;
  /** Bytes kept of stdout and of stderr each; more kills the process. */
  readonly outputCap: number;
  readonly signal?: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Run the program in an OS sandbox (Linux, bubblewrap). A missing bwrap or a sandbox that cannot be
   * set up is reported as `spawnError`. Under bwrap a program killed by a signal reports exit code
   * 128 + the signal's number and `signal: null`.
   * @default undefined: the program sees and may change what redline may
   */
  readonly sandbox?: Sandbox;
  /**
   * Run the program in a PID namespace of its own when this machine allows it (Linux; see
   * `pidNamespace()`), so that ending it ends every descendant and a killed redline takes it along.
   * `false` keeps it in the host's, ended by process group and environment marker. A sandbox has
   * a PID namespace of its own either way.
   * @default true, unless `REDLINE_PID_NAMESPACE=off`
   */
  readonly pidNamespace?: boolean;
  /** Sees each chunk of stdout and stderr as it arrives (what is kept is capped all the same). */
  readonly onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

export interface ProcessResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why the process was ended by the runtime, if it was. */
  readonly killed?: 'timeout' | 'output_cap' | 'aborted';
  /** The program could not be started at all (ENOENT, EACCES, no bwrap, a sandbox that failed to set up). */
  readonly spawnError?: string;
  readonly durationMs: number;
}

/**
 * The environment programs inherit, minus the variable by which node's test runner tells a child
 * `node --test` to report to its parent: a check's test command must print its own report.
 */
export function inheritedEnv(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  return env;
}

/** What to spawn: the argv, and what wraps the program, if anything. */
type Launch = {
  readonly argv: readonly string[];
  /** The program's private temporary directory, removed after it. */
  readonly temporary: string;
  /** Which PID namespace tool wraps the program outside a sandbox. */
  readonly namespace?: PidNamespaceLauncher['via'];
};

/**
 * The program and arguments to spawn, wrapped in bwrap when sandboxed or in a PID namespace when
 * `namespace` is given, or why it cannot start. Every program gets a private temporary directory, named
 * by TMPDIR, TMP and TEMP, which is removed after it (`temporary`): what a check or proposer leaves there
 * does not pile up in the machine's temp folder. Sandboxed, it is the only writable temporary directory;
 * unsandboxed, a program that ignores TMPDIR still writes where it likes.
 */
function launch(options: ProcessOptions, namespace: PidNamespaceLauncher | undefined): Launch | { readonly problem: string } {
  const argv = typeof options.command === 'string' ? ['/bin/sh', '-c', options.command] : options.command;
  const { sandbox } = options;
  const cwd = path.resolve(options.cwd);
  if (sandbox === undefined) {
    const temporary = processTemporary('tmp');
    return namespace === undefined ? { argv, temporary } : { argv: namespace.argv(argv, cwd), temporary, namespace: namespace.via };
  }
  const bwrap = findBwrap(sandbox.bwrapPath);
  if (bwrap === undefined) return { problem: bwrapMissing(sandbox.bwrapPath) };
  const temporary = processTemporary('sandbox-tmp');
  const writable = [...sandbox.writable.map((dir) => path.resolve(cwd, dir)), temporary];
  return { argv: [bwrap, ...bwrapArgv({ sandbox: { ...sandbox, writable }, cwd, command: argv, statusFd: STATUS_FD })], temporary };
}

/** The PID namespace to run the program in: none in a sandbox (it has its own), when asked for none, or where none works. */
async function namespaceFor(options: ProcessOptions): Promise<PidNamespaceLauncher | undefined> {
  if (options.sandbox !== undefined || options.pidNamespace === false) return undefined;
  const launcher = await pidNamespaceLauncher();
  return typeof launcher === 'string' ? undefined : launcher;
}

/**
 * Runs a process in its own process group with a timeout, an output cap, an abort signal and, on
 * request, an OS sandbox. It never rejects.
 *
 * On Linux, when the machine allows it (docs/architecture.md, 'Processes'), the program runs in a PID
 * namespace of its own under a small init: when the program exits, times out, is aborted or floods its
 * output, the namespace ends and every descendant with it, whatever its session or environment; and
 * if redline dies, the namespace dies with it. Inside, the program sees its own pids.
 *
 * Elsewhere, every process it starts is marked with a unique environment variable, and the group and
 * every marked process are killed with SIGKILL, so descendants that called setsid or daemonized are
 * ended too. Limits there: without /proc (macOS) only the group is killed; a descendant that clears its
 * environment (`env -i`) escapes the marker; if redline itself is killed, nothing ends what it started.
 *
 * Either way the result waits at most 150 ms for the pipes to drain once the program has exited.
 */
export async function runProcess(options: ProcessOptions): Promise<ProcessResult> {
  const started = performance.now();
  const plan = launch(options, await namespaceFor(options));
  if ('problem' in plan) {
    return {
      exitCode: null,
      signal: null,
      stdout: '',
      stderr: '',
      spawnError: plan.problem,
      durationMs: performance.now() - started,
    };
  }
  const tag = newProcessTag();
  const [file, ...args] = plan.argv;
  const { temporary, namespace } = plan;
  const env = options.env ?? inheritedEnv();
  // In a PID namespace the namespace ends the descendants: no need to look for them by their marker.
  const sweeps = findsDescendants && namespace === undefined;
  return new Promise((resolve) => {
    const reports = options.sandbox !== undefined || namespace !== undefined;
    const stdio: StdioPipe[] = reports ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'];
    const marked = taggedEnv({ ...env, TMPDIR: temporary, TMP: temporary, TEMP: temporary }, tag);
    const child = spawn(file as string, args, {
      cwd: options.cwd,
      env: namespace === undefined ? marked : initEnv(marked),
      detached: true,
      stdio,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let status = '';
    let outBytes = 0;
    let errBytes = 0;
    let killed: ProcessResult['killed'];
    let spawnError: string | undefined;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;

    const endAll = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
      if (sweeps) killTagged(tag);
    };
    const killAll = (why: NonNullable<ProcessResult['killed']>): void => {
      killed ??= why;
      endAll();
    };
    // A timer overdue after a stall of this process's event loop fires before the loop reads an exit that
    // came during the stall: the kill waits for the rest of that turn, and a program found ended is not
    // called timed out.
    const timer = setLongTimeout({
      delayMs: options.timeoutMs,
      onTimeout: () =>
        setImmediate(() => {
          if (child.exitCode === null && child.signalCode === null) killAll('timeout');
        }),
    });
    const onAbort = (): void => killAll('aborted');
    if (options.signal?.aborted) queueMicrotask(onAbort);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const collect = (chunks: Buffer[], size: () => number, add: (n: number) => void) => (chunk: Buffer) => {
      options.onOutput?.(chunks === out ? 'stdout' : 'stderr', chunk);
      if (size() + chunk.length > options.outputCap) {
        chunks.push(chunk.subarray(0, Math.max(0, options.outputCap - size())));
        add(options.outputCap - size());
        killAll('output_cap');
        return;
      }
      chunks.push(chunk);
      add(chunk.length);
    };
    child.stdout.on(
      'data',
      collect(
        out,
        () => outBytes,
        (n) => (outBytes += n),
      ),
    );
    child.stderr.on(
      'data',
      collect(
        err,
        () => errBytes,
        (n) => (errBytes += n),
      ),
    );
    child.stdio[STATUS_FD]?.on('data', (chunk: Buffer) => (status += chunk.toString('utf8')));
    child.stdin.on('error', () => {
      // The program did not read its input; its exit status tells the story.
    });
    child.stdin.end(options.input ?? '');

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      rmSync(temporary, { recursive: true, force: true });
      timer.clear();
      clearTimeout(grace);
      options.signal?.removeEventListener('abort', onAbort);
      const stderr = Buffer.concat(err).toString('utf8');
      const lastLine = (tool: string): string => stderr.trim().split('\n').at(-1) || `${tool} exited with ${exitCode}`;
      // bwrap reports an exit code only for a program that ran: without one, the sandbox failed to set up.
      if (options.sandbox !== undefined && killed === undefined && spawnError === undefined && !status.includes('"exit-code"')) {
        spawnError = `the sandbox could not start the program: ${lastLine('bwrap')}`;
      }
      let ended = { exitCode, signal };
      if (namespace !== undefined && spawnError === undefined) {
        // The init reports how the program itself ended. Without a report the wrapper was killed (by the
        // runtime, or by a signal from outside: its own end is the result) or could not set up.
        const report = initReport(status);
        if (report === undefined) {
          if (killed === undefined && signal === null) spawnError = `the PID namespace could not start the program: ${lastLine(namespace)}`;
        } else if ('spawnError' in report) {
          spawnError = report.spawnError;
          ended = { exitCode: null, signal: null };
        } else ended = report;
      }
      resolve({
        ...ended,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr,
        ...(killed === undefined ? {} : { killed }),
        ...(spawnError === undefined ? {} : { spawnError }),
        durationMs: performance.now() - started,
      });
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = error.code ?? error.message;
      finish(null, null);
    });
    child.on('exit', (exitCode, signal) => {
      // The program is done: a late timeout or abort must not mark its result as killed.
      timer.clear();
      options.signal?.removeEventListener('abort', onAbort);
      // Descendants would keep the pipes open, and running: end them all once the program exits.
      endAll();
      // The grace ends in the check phase, after the poll phase has read whatever the pipes still hold,
      // even when a busy event loop let the timer fall due before the data was read.
      grace = setTimeout(
        () =>
          setImmediate(() => {
            // Something still holds the pipes. A descendant caught in the middle of an exec shows an empty
            // environment to the first sweep; by now its exec is done and a second sweep finds it.
            if (sweeps) killTagged(tag);
            for (const stream of child.stdio) stream?.destroy();
            finish(exitCode, signal);
          }),
        PIPE_GRACE_MS,
      );
    });
    child.on('close', finish);
  });
}
