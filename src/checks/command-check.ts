import { runProcess } from '../process/run-process.js';
import { checkSandbox, finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding, Stage } from '../core/finding.js';
import { missingScriptFinding, processErrorFinding, tail } from './process-finding.js';

export interface CommandCheckOptions {
  readonly name: string;
  readonly command: string | readonly string[];
  /** @default 'fast' */
  readonly stage?: Stage;
  /** @default 'format' */
  readonly tier?: 'format' | 'demand';
  /** @default true */
  readonly required?: boolean;
  /** @default 60000 */
  readonly timeoutMs?: number;
  /** @default 1048576 */
  readonly outputCap?: number;
}

/** Passes when the command exits 0 in the candidate copy. */
export function commandCheck({
  name,
  command,
  stage = 'fast',
  tier = 'format',
  required = true,
  timeoutMs = 60_000,
  outputCap = 1_048_576,
}: CommandCheckOptions): Check {
  const check = { name, stage, tier, required };
  return {
    ...check,
    async run(context: CheckContext): Promise<Finding[]> {
      const { dir, signal } = context;
      if (dir === undefined) return [finding(check, 'error', ['check.no_workspace'], 'a command check needs a mission workspace')];
      const result = await runProcess({ command, cwd: dir, timeoutMs, outputCap, signal, ...checkSandbox(context) });
      const error = processErrorFinding(check, result, timeoutMs);
      if (error !== undefined) return [error];
      const missing = missingScriptFinding(check, { command, cwd: dir, result });
      if (missing !== undefined) return [missing];
      if (result.exitCode === 0) return [finding(check, 'pass', [], 'exit 0')];
      return [finding(check, 'fail', ['command.exit_nonzero'], `exit ${result.exitCode}\n${tail(result.stderr || result.stdout)}`)];
    },
  };
}
