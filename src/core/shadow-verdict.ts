import type { Finding } from './finding.js';

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
