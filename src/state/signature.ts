import { hash } from 'node:crypto';
import type { Finding } from '../core/finding.js';

const sha = (text: string): string => hash('sha256', text, 'hex').slice(0, 32);

/** Sorted, de-duplicated reason codes of failing findings of required checks. */
export function failingCodes(findings: readonly Finding[], required: ReadonlySet<string>): string[] {
  const codes = new Set<string>();
  for (const item of findings) {
    if (item.status === 'fail' && required.has(item.check)) for (const code of item.reasonCodes) codes.add(`${item.check}:${code}`);
  }
  return [...codes].sort();
}

/** Names of the checks that ran (not skipped), sorted. */
export function completedChecks(findings: readonly Finding[]): string[] {
  return [...new Set(findings.filter((item) => item.status !== 'skipped').map((item) => item.check))].sort();
}

/** State signature = hash of (normalized candidate, check plan, completed-check set, sorted failing reason codes). */
export function stateSignature(candidateHash: string, planHash: string, completed: readonly string[], failing: readonly string[]): string {
  return sha(`${candidateHash}\n${planHash}\n${completed.join(',')}\n${failing.join('\n')}`);
}

/** Fingerprint of what the checks rejected; `''` when nothing failed. */
export function rejectionFingerprint(failing: readonly string[]): string {
  return failing.length === 0 ? '' : sha(failing.join('\n'));
}

export function planHash(checks: readonly { name: string; stage: string; tier: string; required: boolean }[]): string {
  return sha(checks.map((check) => `${check.name}/${check.stage}/${check.tier}/${check.required}`).join('\n'));
}
