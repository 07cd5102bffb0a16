import picomatch from 'picomatch';
import { finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding } from '../core/finding.js';

/** The name of the built-in scope check every mission runs. */
export const SCOPE_CHECK = 'scope';

/** Whether a workspace path (in normal form) is within the scope globs: what a candidate may change. */
export function scopeMatcher(scope: readonly string[]): (file: string) => boolean {
  return picomatch([...scope], { dot: true });
}

/** Format red line: every path the candidate changes matches one of the scope globs (its authority). */
export function scopeCheck(scope: readonly string[]): Check {
  const inScope = scopeMatcher(scope);
  const check = { name: SCOPE_CHECK, stage: 'fast' as const, tier: 'format' as const, required: true };
  return {
    ...check,
    readsCopy: false,
    async run({ candidate }: CheckContext): Promise<Finding[]> {
      const outside = candidate.footprint.filter((file) => !inScope(file));
      if (outside.length === 0) return [finding(check, 'pass', [], `${candidate.footprint.length} path(s) within scope`)];
      return outside.map((file) =>
        finding(check, 'fail', [`scope.outside:${file}`], `${file} is outside the mission scope (${scope.join(', ')})`, {
          location: { file },
        }),
      );
    },
  };
}
