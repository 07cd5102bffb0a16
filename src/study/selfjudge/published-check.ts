import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkSandbox, finding, type Check } from '../../core/check.js';
import { runProcess } from '../../process/run-process.js';
import { pythonStrip } from './published-prompts.js';
import type { CodeTask } from './tasks.js';

/** The check's name: the same as the redline protocol's test check, so that reports and `--task-type` queries read alike. */
export const PUBLISHED_CHECK = 'tests';
/** Reason code of a program that exited non-zero: the finding's message is its stderr, stripped (the script's `last_err`). */
export const PROGRAM_FAILED = 'program.exit_nonzero';
/** Reason code of a program that exited 0 with other output, or did not finish within the script's 10 s. */
export const OUTPUT_MISMATCH = 'output.mismatch';

/** The script's timeout of one run of the code. */
const TIMEOUT_MS = 10_000;

/**
 * The published script's test of one candidate: `solution.py`, a blank line and the task's test statement run as one
 * Python program (read from stdin, so a traceback names `<stdin>` and no file of the harness). It passes when the
 * program exits 0 and its stdout, stripped, equals `expected`.
 */
export function publishedCheck({ task, shadow = false }: { task: CodeTask; shadow?: boolean }): Check {
  const check = { name: PUBLISHED_CHECK, stage: 'fast' as const, tier: 'demand' as const, required: true };
  return {
    ...check,
    ...(shadow ? { shadow: true } : {}),
    async run(context) {
      const { dir, signal } = context;
      if (dir === undefined) return [finding(check, 'error', ['check.no_workspace'], 'the published check needs the task workspace')];
      const code = await readFile(path.join(dir, 'solution.py'), 'utf8').catch(() => '');
      const result = await runProcess({
        command: ['python3', '-'],
        input: `${code}\n\n${task.testStmt}`,
        cwd: dir,
        timeoutMs: TIMEOUT_MS,
        outputCap: 1_048_576,
        signal,
        ...checkSandbox(context),
      });
      if (result.spawnError !== undefined)
        return [finding(check, 'error', ['process.spawn_failed'], `could not start python3: ${result.spawnError}`)];
      if (result.exitCode === 0 && pythonStrip(result.stdout) === task.expected) return [finding(check, 'pass', [], 'output matches')];
      // A crash is the program's failure; a program the runtime ended (the 10 s timeout) is, as in the script, a mismatch.
      if (result.exitCode !== 0 && result.killed === undefined)
        return [finding(check, 'fail', [PROGRAM_FAILED], pythonStrip(result.stderr))];
      return [finding(check, 'fail', [OUTPUT_MISMATCH], `expected:\n${task.expected}\ngot:\n${pythonStrip(result.stdout)}`)];
    },
  };
}
