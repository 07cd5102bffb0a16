import { finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import { shadowVerdict, type ShadowResult } from '../core/shadow-verdict.js';
import { runChecks, skipAll } from '../checks/run-checks.js';

export interface RunShadowOptions {
  /** The mission's shadow checks (at least one). */
  readonly checks: readonly Check[];
  /** The check context without its directory; its `candidate` is the one the loop stopped on. */
  readonly context: Omit<CheckContext, 'dir'>;
  /** The scope check, run first: a candidate outside the scope is not written anywhere, its shadow checks are skipped. */
  readonly scope?: Check;
  /** Resets the run's isolated check copy to snapshot + candidate and gives its directory; absent without a workspace. */
  readonly copy?: () => Promise<string>;
  /** The run's clock, for each check's `durationMs`. */
  readonly now?: () => number;
}

/**
 * Runs the shadow checks once on the candidate the loop stopped on. It never throws: whatever breaks is
 * an `error` finding, so a shadow check cannot change the run's outcome or verification.
 */
export async function runShadow({ checks, context, scope, copy, now }: RunShadowOptions): Promise<ShadowResult> {
  let findings: Finding[];
  try {
    const scoped = scope === undefined ? [] : await scope.run(context);
    if (scoped.some((item) => item.status !== 'pass')) findings = skipAll(checks, 'scope_violation');
    else findings = await runChecks(checks, copy === undefined ? context : { ...context, dir: await copy() }, now);
  } catch (error) {
    const message = `the shadow run broke: ${(error as Error)?.message ?? String(error)}`;
    findings = checks.map((check) => finding(check, 'error', ['shadow.crashed'], message));
  }
  return { verdict: shadowVerdict(findings), findings };
}
