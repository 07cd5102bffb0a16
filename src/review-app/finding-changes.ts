import type { Finding } from '../core/finding.js';

/** How a check fares in one attempt against the attempt before it (the baseline before the first). */
export type CheckChange = 'new' | 'fixed' | 'still_failing' | 'passing';

/** One check of an attempt: how it changed, and the findings it reported this time. */
export interface CheckFindings {
  readonly check: string;
  readonly change: CheckChange;
  readonly findings: readonly Finding[];
}

const failing = (findings: readonly Finding[] | undefined): boolean =>
  findings !== undefined && findings.some((finding) => finding.status === 'fail' || finding.status === 'error');

function byCheck(findings: readonly Finding[]): Map<string, Finding[]> {
  const checks = new Map<string, Finding[]>();
  for (const finding of findings) {
    const list = checks.get(finding.check) ?? [];
    list.push(finding);
    checks.set(finding.check, list);
  }
  return checks;
}

/** Order of the groups on the run page: what broke first, then what still fails, what was fixed, what passes. */
const ORDER: readonly CheckChange[] = ['new', 'still_failing', 'fixed', 'passing'];

/**
 * An attempt's findings grouped by check, each check marked against the previous findings: `new` (fails
 * now, did not before), `fixed` (failed before, not now), `still_failing`, or `passing`. A check that
 * reported nothing this time but failed before counts as fixed only if it ran: it is left out.
 * @example
 * findingChanges(baselineFindings, attemptFindings) // [{ check: 'tests', change: 'fixed', findings: [...] }]
 */
export function findingChanges(previous: readonly Finding[], current: readonly Finding[]): CheckFindings[] {
  const before = byCheck(previous);
  const groups = [...byCheck(current)].map(([check, findings]): CheckFindings => {
    const [was, is] = [failing(before.get(check)), failing(findings)];
    const change: CheckChange = is ? (was ? 'still_failing' : 'new') : was ? 'fixed' : 'passing';
    return { check, change, findings };
  });
  return groups.sort((a, b) => ORDER.indexOf(a.change) - ORDER.indexOf(b.change) || (a.check < b.check ? -1 : a.check > b.check ? 1 : 0));
}
