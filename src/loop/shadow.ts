import { finding, type Check, type CheckContext } from '../checks/check.js';
import type { Finding } from '../checks/finding.js';
import { runChecks, skipAll } from './run-checks.js';

/** What the shadow checks said of the candidate the loop stopped on: the run's true verdict. */
export type ShadowVerdict = 'pass' | 'fail' | 'error';

/** The seal's `shadow` field. */
export interface ShadowResult {
  /**
   * `pass`: every shadow check ran and passed; `fail`: one failed; `error`: none failed but one could
   * not tell (an `error` finding, or skipped for another reason than a failed fast stage).
   */
  readonly verdict: ShadowVerdict;
  readonly findings: readonly Finding[];
}

/** The verdict of shadow findings: a failure is conclusive, an error or skip without one is not. */
export function shadowVerdict(findings: readonly Finding[]): ShadowVerdict {
  if (findings.some((item) => item.status === 'fail')) return 'fail';
  return findings.length > 0 && findings.every((item) => item.status === 'pass') ? 'pass' : 'error';
}

export interface RunShadowOptions {
  /** The mission's shadow checks (at least one). */
  readonly checks: readonly Check[];
  /** The check context without its directory; its `candidate` is the one the loop stopped on. */
  readonly context: Omit<CheckContext, 'dir'>;
  /** The scope check, run first: a candidate outside the scope is not written anywhere, its shadow checks are skipped. */
  readonly scope?: Check;
  /** Resets the run's isolated check copy to snapshot + candidate and gives its directory; absent without a workspace. */
  readonly copy?: () => Promise<string>;
}

/**
 * Runs the shadow checks once on the candidate the loop stopped on. It never throws: whatever breaks is
 * an `error` finding, so a shadow check cannot change the run's outcome or verification.
 */
export async function runShadow({ checks, context, scope, copy }: RunShadowOptions): Promise<ShadowResult> {
  let findings: Finding[];
  try {
    const scoped = scope === undefined ? [] : await scope.run(context);
    if (scoped.some((item) => item.status !== 'pass')) findings = skipAll(checks, 'scope_violation');
    else findings = await runChecks(checks, copy === undefined ? context : { ...context, dir: await copy() });
  } catch (error) {
    const message = `the shadow run broke: ${(error as Error)?.message ?? String(error)}`;
    findings = checks.map((check) => finding(check, 'error', ['shadow.crashed'], message));
  }
  return { verdict: shadowVerdict(findings), findings };
}
