import path from 'node:path';
import type { ProcessResult } from '../process/run-process.js';
import { finding, type Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';

/**
 * Reason codes of findings that say a check could not run in its environment, whatever the candidate:
 * its program could not start or was not found (a shell's exit 127) or not executable (exit 126), it ran
 * past its own timeout, or it never wrote its report. A required check with one at the baseline blocks the
 * run (`environment`) before any proposal.
 */
export const ENVIRONMENT_CODES: ReadonlySet<string> = new Set([
  'process.spawn_failed',
  'process.not_found',
  'process.not_executable',
  'process.timeout',
  'report.missing',
]);

/**
 * The `error` finding for a process the runtime had to end or could not start, if any. Exit 127 (a shell's
 * "command not found") and 126 ("not executable") say the check's program could not run: they are errors,
 * not failures of the candidate.
 */
export function processErrorFinding(
  check: Pick<Check, 'name' | 'stage' | 'tier'>,
  result: ProcessResult,
  timeoutMs: number,
): Finding | undefined {
  if (result.spawnError !== undefined) {
    return finding(check, 'error', ['process.spawn_failed'], `could not start the command: ${result.spawnError}`);
  }
  switch (result.killed) {
    case 'timeout':
      return finding(check, 'error', ['process.timeout'], `killed after the ${timeoutMs} ms timeout`);
    case 'output_cap':
      return finding(check, 'error', ['process.output_cap'], 'killed: output exceeded the cap');
    case 'aborted':
      return finding(check, 'error', ['process.aborted'], 'killed: the run was stopped');
    default:
      break;
  }
  if (result.signal !== null) return finding(check, 'error', ['process.crashed'], `ended by signal ${result.signal}`);
  if (result.exitCode === 127)
    return finding(check, 'error', ['process.not_found'], `the command was not found (exit 127)\n${tail(result.stderr || result.stdout)}`);
  if (result.exitCode === 126)
    return finding(
      check,
      'error',
      ['process.not_executable'],
      `the command could not be executed (exit 126)\n${tail(result.stderr || result.stdout)}`,
    );
  return undefined;
}

/** What node, `node --test` and python say when the script they were given does not exist: its absolute path. */
const MISSING_SCRIPT = [
  /Error: Cannot find module '([^'\n]+)'/,
  /^Could not find '([^'\n]+)'/m,
  /can't open file '([^'\n]+)': \[Errno 2\]/,
];

/**
 * The `error` finding for a command whose interpreter could not find the script the command names (one of
 * its arguments, resolved in `cwd`), if that is why it failed: a file the check needs is not in its copy.
 * The script goes in the finding's location, relative to `cwd`, so that the runtime can tell a script the
 * candidate may still write (in the mission's scope) from one no candidate can (an `environment` block).
 * A module the script imports that is missing is not this: the script ran.
 */
export function missingScriptFinding(
  check: Pick<Check, 'name' | 'stage' | 'tier'>,
  { command, cwd, result }: { command: string | readonly string[]; cwd: string; result: ProcessResult },
): Finding | undefined {
  if (result.exitCode === 0 || typeof command === 'string') return undefined;
  const output = `${result.stderr}\n${result.stdout}`;
  const named = MISSING_SCRIPT.map((pattern) => pattern.exec(output)?.[1]).find((found) => found !== undefined);
  if (named === undefined) return undefined;
  const script = command.slice(1).find((arg) => path.resolve(cwd, arg) === path.resolve(cwd, named));
  if (script === undefined) return undefined;
  const file = path.relative(cwd, path.resolve(cwd, script)).split(path.sep).join('/');
  return finding(
    check,
    'error',
    ['process.script_missing'],
    `the command's script ${file} is not in the check's copy (exit ${result.exitCode})\n${tail(result.stderr || result.stdout)}`,
    { location: { file } },
  );
}

/** The last few lines of a process's output, for a finding's message. */
export function tail(text: string, lines = 5): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
