import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';

/** What a `redline` command left: its exit code and everything it printed. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The checkout's root, where the CLI's relative paths (`examples/…`) are resolved. */
export const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/redline.js');

// `redline run` keeps check copies in a cache folder: the CLI's tests (and the children they spawn) use one
// of this process's own, removed when it exits, never the user's (a killed process's is swept by its pid).
if (process.env.REDLINE_CACHE === undefined) {
  const cache = mkdtempSync(path.join(os.tmpdir(), `redline-cache-${process.pid}-`));
  process.env.REDLINE_CACHE = cache;
  // The built CLI's code cache as well, when the suite's runner (scripts/in-temp-dir.mjs) gave none.
  process.env.REDLINE_CODE_CACHE ??= path.join(cache, 'code-cache');
  process.once('exit', () => rmSync(cache, { recursive: true, force: true }));
}

/**
 * Runs `redline ARGS` in this process through the CLI's `main`, as a user would type it: commander parses
 * the arguments and maps usage and input errors to exit 2, and stdout and stderr come back as a terminal
 * would get them. A bug that is no user error rejects, with its stack, instead of exiting 1.
 */
export async function redline(args: readonly string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { print: (line) => void (stdout += `${line}\n`), progress: (line) => void (stderr += `${line}\n`) });
  return { code, stdout, stderr };
}

/**
 * Runs the built CLI (`npm test` builds first) in a child process: only for what the process boundary
 * decides — the exit code a shell sees, stderr without a stack trace, the modules a command loads.
 */
export function spawnRedline(
  args: readonly string[],
  {
    cwd = ROOT,
    env = process.env,
    node = [],
    timeout = 60_000,
  }: { cwd?: string; env?: NodeJS.ProcessEnv; node?: readonly string[]; timeout?: number } = {},
): CliResult {
  const result = spawnSync(process.execPath, [...node, BIN, ...args], { cwd, encoding: 'utf8', timeout, env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * How node runs the TypeScript program `file`: its compiled JavaScript beside it when there is one (the
 * suites' compiled tree, where tsx's start would cost more than the program), else through tsx.
 */
export function nodeFor(file: string): string[] {
  const compiled = file.replace(/\.ts$/, '.js');
  return compiled !== file && existsSync(compiled) ? [compiled] : ['--import', 'tsx', file];
}

/** Runs a TypeScript program (through tsx, unless compiled) to its end, without blocking this process: for children that die mid-run. */
export async function runChild(file: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [...nodeFor(file), ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}
