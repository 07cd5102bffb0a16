import type { ProposerAccount } from '../core/proposer-account.js';
import { ProposerError } from '../errors/proposer-error.js';
import type { ProcessResult } from '../process/run-process.js';

export interface ProcessFailureOptions {
  /** The command as the proposer was given it: a string ran under `/bin/sh -c`. */
  readonly command: string | readonly string[];
  readonly result: ProcessResult;
  readonly timeoutMs: number;
  readonly outputCap: number;
  readonly who: 'proposer' | 'agent';
  /** How the program ran: every error carries it. */
  readonly account: ProposerAccount;
}

/** A word the shell takes as it is: no quotes, expansions, globs or operators. */
const PLAIN_WORD = /^[\w./+@%,:-]+$/;
/** A plain `NAME=value` before the program: an assignment, not the program. */
const ASSIGNMENT = /^[A-Za-z_]\w*=[\w./+@%,:-]*$/;

/**
 * The program a `/bin/sh -c` command string starts with, when the string names it with a plain word
 * after any plain `NAME=value` assignments; undefined when shell syntax makes it uncertain.
 */
function leadingProgram(command: string): string | undefined {
  const program = command
    .trim()
    .split(/\s+/)
    .find((word) => !ASSIGNMENT.test(word));
  return program !== undefined && PLAIN_WORD.test(program) ? program : undefined;
}

/**
 * The program of a command string that the shell could not find. `sh -c` turns a missing program into
 * exit 127 and one line on stderr instead of a failed spawn, so it counts as one only when the shell
 * exited 127 and its last line says exactly that program was not found (dash: `sh: 1: x: not found`; busybox: `sh: x: not found`;
 * bash as sh: `sh: line 1: x: command not found`, or `… No such file or directory` for a path).
 */
function notFoundByShell(command: string | readonly string[], result: ProcessResult): string | undefined {
  if (typeof command !== 'string' || result.exitCode !== 127) return undefined;
  const program = leadingProgram(command);
  if (program === undefined) return undefined;
  const last = result.stderr.trimEnd().split('\n').at(-1) ?? '';
  const prefix = /^(?:\/bin\/)?sh: (?:(?:line )?\d+: )?/.exec(last)?.[0];
  if (prefix === undefined) return undefined;
  const said = last.slice(prefix.length);
  return [`${program}: not found`, `${program}: command not found`, `${program}: No such file or directory`].includes(said)
    ? program
    : undefined;
}

/** The proposer error for a program that could not start, was ended by the runtime or exited non-zero, with its account. */
export function processFailure({ command, result, timeoutMs, outputCap, who, account }: ProcessFailureOptions): ProposerError | undefined {
  if (result.spawnError !== undefined)
    return new ProposerError({ code: 'proposer.spawn_failed', message: `could not start the ${who}: ${result.spawnError}`, account });
  if (result.killed === 'timeout')
    return new ProposerError({
      code: 'proposer.timeout',
      message: `the ${who} ran past its ${timeoutMs} ms timeout and was killed`,
      account,
    });
  if (result.killed === 'output_cap')
    return new ProposerError({
      code: 'proposer.output_cap',
      message: `the ${who} wrote more than ${outputCap} bytes and was killed`,
      account,
    });
  if (result.killed === 'aborted')
    return new ProposerError({ code: 'proposer.aborted', message: `the run stopped while the ${who} was running`, account });
  const missing = notFoundByShell(command, result);
  if (missing !== undefined) {
    return new ProposerError({
      code: 'proposer.spawn_failed',
      message: `could not start the ${who}: the shell found no program ${JSON.stringify(missing)} (exit 127)`,
      output: result.stderr,
      account,
    });
  }
  if (result.exitCode !== 0)
    return new ProposerError({
      code: 'proposer.exit_nonzero',
      message: `the ${who} exited ${result.exitCode ?? `by signal ${result.signal}`}`,
      output: result.stderr,
      account,
    });
  return undefined;
}
