import { stat } from 'node:fs/promises';
import path from 'node:path';
import { finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding } from '../core/finding.js';

export const DECLARED_OUTPUTS_CHECK = 'declared-outputs';

/**
 * Format red line: every declared output exists — a file in the candidate copy, or, for missions
 * without a workspace, a key of the candidate's value.
 */
export function declaredOutputsCheck(outputs: readonly string[]): Check {
  const check = { name: DECLARED_OUTPUTS_CHECK, stage: 'fast' as const, tier: 'format' as const, required: true };
  return {
    ...check,
    async run({ dir, candidate }: CheckContext): Promise<Finding[]> {
      const missing: string[] = [];
      for (const output of outputs) {
        if (dir === undefined) {
          const value = candidate.value;
          if (typeof value !== 'object' || value === null || !(output in value)) missing.push(output);
          continue;
        }
        const exists = await stat(path.join(dir, output)).then(
          (info) => info.isFile(),
          () => false,
        );
        if (!exists) missing.push(output);
      }
      if (missing.length === 0) return [finding(check, 'pass', [], `${outputs.length} declared output(s) present`)];
      return missing.map((output) =>
        finding(check, 'fail', [`output.missing:${output}`], `declared output ${output} was not produced`, { location: { file: output } }),
      );
    },
  };
}
