import { runProcess } from '../process/run-process.js';
import { checkSandbox, finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding, Stage } from '../core/finding.js';
import { missingScriptFinding, processErrorFinding, tail } from './process-finding.js';

export interface ExpectedOutputCheckOptions {
  readonly name: string;
  readonly command: string | readonly string[];
  readonly expected: string;
  /** `exact` compares bytes; `trimmed` ignores surrounding whitespace and line-ending style. @default 'trimmed' */
  readonly compare?: 'exact' | 'trimmed';
  readonly stage?: Stage;
  readonly required?: boolean;
  readonly timeoutMs?: number;
  readonly outputCap?: number;
}

const normalize = (text: string): string => text.replace(/\r\n/g, '\n').trim();

/** Demand red line: the command's stdout equals the expected text. */
export function expectedOutputCheck({
  name,
  command,
  expected,
  compare = 'trimmed',
  stage = 'fast',
  required = true,
  timeoutMs = 60_000,
  outputCap = 1_048_576,
}: ExpectedOutputCheckOptions): Check {
  const check = { name, stage, tier: 'demand' as const, required };
  return {
    ...check,
    async run(context: CheckContext): Promise<Finding[]> {
      const { dir, signal } = context;
      if (dir === undefined) return [finding(check, 'error', ['check.no_workspace'], 'an expected-output check needs a mission workspace')];
      const result = await runProcess({ command, cwd: dir, timeoutMs, outputCap, signal, ...checkSandbox(context) });
      const error = processErrorFinding(check, result, timeoutMs);
      if (error !== undefined) return [error];
      const missing = missingScriptFinding(check, { command, cwd: dir, result });
      if (missing !== undefined) return [missing];
      const same = compare === 'exact' ? result.stdout === expected : normalize(result.stdout) === normalize(expected);
      if (same) return [finding(check, 'pass', [], 'output matches')];
      return [finding(check, 'fail', ['output.mismatch'], `expected:\n${tail(expected, 10)}\ngot:\n${tail(result.stdout, 10)}`)];
    },
  };
}
