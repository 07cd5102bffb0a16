import { spawn } from 'node:child_process';

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
}

export interface ProcessResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why the process was ended by the runtime, if it was. */
  readonly killed?: 'timeout' | 'output_cap' | 'aborted';
  /** The program could not be started at all (ENOENT, EACCES). */
  readonly spawnError?: string;
  readonly durationMs: number;
}

/**
 * The environment programs inherit, minus the variable by which node's test runner tells a child
 * `node --test` to report to its parent: a check's test command must print its own report.
 */
function inheritedEnv(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  return env;
}

/**
 * Runs a process in its own process group with a timeout, an output cap and an abort signal.
 * Whatever happens, the whole group is killed with SIGKILL before this resolves; it never rejects.
 */
export function runProcess(options: ProcessOptions): Promise<ProcessResult> {
  const started = performance.now();
  const [file, args] =
    typeof options.command === 'string' ? ['/bin/sh', ['-c', options.command]] : [options.command[0] as string, options.command.slice(1)];
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? inheritedEnv(),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let killed: ProcessResult['killed'];
    let spawnError: string | undefined;
    let settled = false;

    const killGroup = (why: NonNullable<ProcessResult['killed']>): void => {
      killed ??= why;
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => killGroup('timeout'), options.timeoutMs);
    const onAbort = (): void => killGroup('aborted');
    if (options.signal?.aborted) queueMicrotask(onAbort);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const collect = (chunks: Buffer[], size: () => number, add: (n: number) => void) => (chunk: Buffer) => {
      if (size() + chunk.length > options.outputCap) {
        chunks.push(chunk.subarray(0, Math.max(0, options.outputCap - size())));
        add(options.outputCap - size());
        killGroup('output_cap');
        return;
      }
      chunks.push(chunk);
      add(chunk.length);
    };
    child.stdout.on('data', collect(out, () => outBytes, (n) => (outBytes += n)));
    child.stderr.on('data', collect(err, () => errBytes, (n) => (errBytes += n)));
    child.stdin.on('error', () => {
      // The program did not read its input; its exit status tells the story.
    });
    child.stdin.end(options.input ?? '');

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ...(killed === undefined ? {} : { killed }),
        ...(spawnError === undefined ? {} : { spawnError }),
        durationMs: performance.now() - started,
      });
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = error.code ?? error.message;
      finish(null, null);
    });
    // Grandchildren that keep the pipes open would delay 'close': end the group once the program exits.
    child.on('exit', () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Nothing left to kill.
      }
    });
    child.on('close', finish);
  });
}
