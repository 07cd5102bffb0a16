import { recordedCommand } from '../core/redact-command.js';
import { runProcess } from '../process/run-process.js';
import type { Judge } from './judge.js';

/** The protocol named in the request a command judge reads. */
export const JUDGE_PROTOCOL = 'redline.decision/1';

export interface CommandJudgeOptions {
  /** argv array, or a string run by `/bin/sh -c`. */
  readonly command: string | readonly string[];
  /** Working directory of the program. */
  readonly cwd: string;
  /** Limit of one decision; the run's wall-clock budget applies as well. @default 60000 */
  readonly timeoutMs?: number;
  /** Bytes of stdout and of stderr kept; more kills the program and fails the decision. @default 1048576 */
  readonly outputCap?: number;
}

/**
 * A judge run as a program: it gets `{"protocol":"redline.decision/1","runId":…,"mission":…,"attempt":…,
 * "candidate":…,"findings":[…],"verdict":…,"acceptance":…}` on stdin and prints one decision
 * `{"transition":…,"reason":…,"cites":[…],"detail":…}` on stdout. A program that cannot start, is killed
 * (timeout, output cap), exits non-zero or prints no JSON throws, which the runtime records as
 * `decision.judge_failed`; what it prints is untrusted and validated like any judge's decision.
 * @example
 * const judge = commandJudge({ command: ['python3', 'judge.py'], cwd: process.cwd() });
 */
export function commandJudge({ command, cwd, timeoutMs = 60_000, outputCap = 1_048_576 }: CommandJudgeOptions): Judge {
  if (!(typeof command === 'string' ? command.length > 0 : Array.isArray(command) && command.length > 0))
    throw new TypeError(`Expected a command (a string or an argv array), got ${JSON.stringify(command)}`);
  return {
    // Recorded (run.started) and traced: secrets in the command redacted.
    name: `command:${recordedCommand(command)}`,
    async decide(evidence, { signal, runId }) {
      const input = JSON.stringify({ protocol: JUDGE_PROTOCOL, ...(runId === undefined ? {} : { runId }), ...evidence });
      const result = await runProcess({ command, cwd, input, timeoutMs, outputCap, signal });
      if (result.spawnError !== undefined) throw new Error(`could not start the judge: ${result.spawnError}`);
      if (result.killed === 'timeout') throw new Error(`the judge ran past its ${timeoutMs} ms timeout`);
      if (result.killed === 'output_cap') throw new Error(`the judge printed more than its ${outputCap}-byte output cap`);
      if (result.killed !== undefined) throw new Error(`the judge was stopped (${result.killed})`);
      if (result.exitCode !== 0) throw new Error(`the judge exited ${result.exitCode}: ${result.stderr.trim().slice(0, 200)}`);
      try {
        return JSON.parse(result.stdout) as unknown;
      } catch {
        throw new Error(`the judge printed no JSON decision: ${result.stdout.trim().slice(0, 200)}`);
      }
    },
  };
}
