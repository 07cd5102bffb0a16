import type { Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import { ENVIRONMENT_CODES } from '../checks/process-finding.js';
import { scopeMatcher } from '../checks/scope-check.js';
import type { StopVerdict } from '../guards/guard.js';
import { StopReason } from '../core/outcome.js';
import type { Mission } from '../mission/mission.js';

/** The name the runtime's environment test gives its stop verdict (the verdict's `guard`). */
export const ENVIRONMENT_GUARD = 'environment';

/**
 * The `blocked / environment` verdict on baseline findings, or undefined. A required check whose finding on
 * the unchanged baseline is an `error` with an environment reason code (see `ENVIRONMENT_CODES`: its program
 * was not found or not executable, it could not start, it ran past its own timeout, it wrote no report)
 * fails the same way on every candidate: retrying burns the budget, an outside repair is needed. So does
 * a script the check's command names that is missing (`process.script_missing`) outside the mission's
 * `scope`: no candidate may write it (one in the scope is the candidate's to write). The detail names each
 * such check and its error.
 */
export function environmentVerdict(
  checks: readonly Check[],
  baseline: readonly Finding[],
  scope: readonly string[],
): StopVerdict | undefined {
  const required = new Set(checks.filter((check) => check.required).map((check) => check.name));
  const inScope = scopeMatcher(scope);
  const unwritable = (item: Finding): boolean =>
    item.reasonCodes.includes('process.script_missing') && item.location?.file !== undefined && !inScope(item.location.file);
  const broken = baseline.filter(
    (item) =>
      required.has(item.check) &&
      item.status === 'error' &&
      (item.reasonCodes.some((code) => ENVIRONMENT_CODES.has(code)) || unwritable(item)),
  );
  if (broken.length === 0) return undefined;
  return {
    guard: ENVIRONMENT_GUARD,
    reason: StopReason.environment,
    outcome: 'blocked',
    detail: broken
      .map((item) => `required check ${item.check} could not run on the baseline (${item.reasonCodes.join(', ')}): ${item.message}`)
      .join('; '),
  };
}

/**
 * Whether a run checks its baseline before any proposal: with a required demand red line (it may already
 * hold: `noop`), or with a required `command` check of the mission file (a linter, a build: a program that
 * may be missing, so the environment test must see it run before a proposal depends on it).
 */
export function checksBaseline(mission: Mission, checks: readonly Check[]): boolean {
  const commands = new Set(mission.checks.filter((spec) => spec.kind === 'command' && spec.shadow !== true).map((spec) => spec.name));
  return checks.some((item) => item.required && (item.tier === 'demand' || commands.has(item.name)));
}
