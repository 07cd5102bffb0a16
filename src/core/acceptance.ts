import type { Check } from './check.js';
import type { Finding } from './finding.js';
import type { Outcome, Verification } from './outcome.js';
import { allowedMissing } from './test-inventory.js';

/** Whether acceptance (docs/architecture.md) holds, and if not, every reason why not. */
export interface Acceptance {
  readonly acceptable: boolean;
  /** Whether the mission has a required demand red line; without one acceptance is at best `sampled`. */
  readonly hasDemand: boolean;
  readonly problems: readonly string[];
}

export interface AcceptanceInput {
  readonly checks: readonly Check[];
  readonly findings: readonly Finding[];
  readonly approvalsRequired: readonly string[];
  readonly approvalsGiven: readonly string[];
  /** Whether the mission is unchanged; asked only when everything else holds (it hashes the mission). */
  readonly missionUnchanged: () => boolean;
  readonly recordsAgree: boolean;
}

/**
 * Acceptance: every required check of every stage ran (none skipped) and passed — which covers declared
 * outputs and scope, checked by built-in required checks — required approvals are present, the mission is
 * unchanged and the retained records agree with the working state. An empty set of failures is not enough.
 */
export function evaluateAcceptance({
  checks,
  findings,
  approvalsRequired,
  approvalsGiven,
  missionUnchanged,
  recordsAgree,
}: AcceptanceInput): Acceptance {
  const problems: string[] = [];
  for (const check of checks) {
    if (!check.required) continue;
    const own = findings.filter((item) => item.check === check.name);
    if (own.length === 0) problems.push(`required check ${check.name} did not run`);
    else if (own.some((item) => item.status === 'skipped')) problems.push(`required check ${check.name} was skipped`);
    else if (own.some((item) => item.status !== 'pass')) problems.push(`required check ${check.name} did not pass`);
  }
  for (const approval of approvalsRequired) {
    if (!approvalsGiven.includes(approval)) problems.push(`approval ${approval} is missing`);
  }
  if (!recordsAgree) problems.push('the retained records do not agree with the working state');
  if (problems.length === 0 && !missionUnchanged()) problems.push('the mission changed during the run');
  return { acceptable: problems.length === 0, hasDemand: checks.some((check) => check.required && check.tier === 'demand'), problems };
}

/**
 * What a sealed run's evidence is worth: a `complete` run is `verified` only when a required demand red line
 * passed whole — a test inventory that shrank under `allowMissing` makes it `sampled`, as does a mission with
 * no demand red line; `complete_noop` is `verified` (the red line held on the baseline); any other outcome
 * is `unverified`.
 */
export function verificationOf(outcome: Outcome, checks: readonly Check[], findings: readonly Finding[]): Verification {
  if (outcome === 'complete_noop') return 'verified';
  if (outcome !== 'complete') return 'unverified';
  const hasDemand = checks.some((check) => check.required && check.tier === 'demand');
  return hasDemand && allowedMissing(findings).length === 0 ? 'verified' : 'sampled';
}
