import { finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import { shadowVerdict, type ShadowResult } from '../core/shadow-verdict.js';
import { runChecks, skipAll } from '../checks/run-checks.js';
import type { CheckCopy } from '../workspace/run-workspace.js';

export interface RunShadowOptions {
  /** The mission's shadow checks (at least one). */
  readonly checks: readonly Check[];
  /** The check context without its directory; its `candidate` is the one the loop stopped on. */
  readonly context: Omit<CheckContext, 'dir'>;
  /** The scope check, run first: a candidate outside the scope is not written anywhere, its shadow checks are skipped. */
  readonly scope?: Check;
  /** Resets the run's isolated check copy to snapshot + candidate and gives it; absent without a workspace. */
  readonly copy?: () => Promise<Pick<CheckCopy, 'dir' | 'changedInputs'>>;
  /** The run's clock, for each check's `durationMs`. */
  readonly now?: () => number;
}

/**
 * Runs the shadow checks once on the candidate the loop stopped on, each one void when its inputs changed
 * while it ran, as in an attempt. It never throws: whatever breaks is an `error` finding, so a shadow
 * check cannot change the run's outcome or verification.
 */
export async function runShadow({ checks, context, scope, copy, now }: RunShadowOptions): Promise<ShadowResult> {
  let findings: Finding[];
  try {
    const scoped = scope === undefined ? [] : await scope.run(context);
    if (scoped.some((item) => item.status !== 'pass')) findings = skipAll(checks, 'scope_violation');
    else if (copy === undefined) findings = await runChecks(checks, context, { now });
    else {
      const { dir, changedInputs } = await copy();
      findings = await runChecks(checks, { ...context, dir }, { now, changedInputs });
    }
  } catch (error) {
    const message = `the shadow run broke: ${(error as Error)?.message ?? String(error)}`;
    findings = checks.map((check) => finding(check, 'error', ['shadow.crashed'], message));
  }
  return { verdict: shadowVerdict(findings), findings };
}
