import { SCOPE_CHECK } from '../checks/scope-check.js';
import { StopReason } from '../core/outcome.js';
import { PROPOSER_CHECK } from '../proposers/no-change.js';
import type { Decision, Evidence, Judge } from './judge.js';

const failing = (evidence: Evidence): string[] =>
  evidence.findings.filter((item) => item.status === 'fail' || item.status === 'error').map((item) => item.check);

/**
 * The default judge, a fixed routing table:
 * 1. baseline already acceptable with a demand red line → `noop`;
 * 2. a scope violation → `block` (the candidate needs authority the mission does not give);
 * 3. acceptance holds on a demand red line → `accept`;
 * 4. a score rule stopped and acceptance holds → `accept` (at best `sampled`);
 * 5. every check passed but an approval is missing → `block`;
 * 6. the mission has checks of its own, all passed, and all are format checks (no demand check, no
 *    score) → `block` (`no_demand_signal`): no further attempt can earn more evidence, whatever a
 *    guard (a budget) says;
 * 7. another guard stopped → its outcome (`fail` or `block`);
 * 8. otherwise → `retry`: `checks_failing` when a check failed, else `acceptance_open` (a required check
 *    did not run, say) or `awaiting_stop_rule` (a score rule has not stopped yet).
 */
export function routingJudge(): Judge {
  return {
    name: 'routing-table',
    decide(evidence: Evidence): Decision {
      const { acceptance, verdict, findings, attempt } = evidence;
      const cites = [...new Set(findings.map((item) => item.check))];
      if (attempt === 0) {
        return acceptance.acceptable && acceptance.hasDemand
          ? { transition: 'noop', reason: StopReason.baselinePassed, cites, detail: 'the baseline already meets every required check' }
          : { transition: 'retry', reason: 'baseline_not_passing', cites };
      }
      const scope = findings.filter((item) => item.check === SCOPE_CHECK && item.status === 'fail');
      if (scope.length > 0) {
        return {
          transition: 'block',
          reason: StopReason.scopeViolation,
          cites: [SCOPE_CHECK],
          detail: scope.map((item) => item.message).join('; '),
        };
      }
      if (acceptance.acceptable && acceptance.hasDemand) {
        return { transition: 'accept', reason: StopReason.demandPassed, cites, detail: 'every required check passed' };
      }
      if (verdict?.outcome === 'complete') {
        if (acceptance.acceptable) return { transition: 'accept', reason: verdict.reason, cites, detail: verdict.detail };
        return { transition: 'retry', reason: 'score_reached_acceptance_open', cites, detail: acceptance.problems.join('; ') };
      }
      if (!acceptance.acceptable && acceptance.problems.every((problem) => problem.startsWith('approval '))) {
        return { transition: 'block', reason: StopReason.approvalMissing, cites, detail: acceptance.problems.join('; ') };
      }
      // The mission's own checks: a mission without any leaves the stopping to its guards.
      const own = findings.filter((item) => item.check !== SCOPE_CHECK && item.check !== PROPOSER_CHECK);
      if (acceptance.acceptable && own.length > 0 && own.every((item) => item.tier === 'format')) {
        return {
          transition: 'block',
          reason: StopReason.noDemandSignal,
          cites,
          detail: 'every check passed, but all are format checks: they cannot tell whether the task is done',
        };
      }
      if (verdict !== undefined) {
        return {
          transition: verdict.outcome === 'blocked' ? 'block' : 'fail',
          reason: verdict.reason,
          cites: failing(evidence),
          detail: verdict.detail,
        };
      }
      const failed = failing(evidence);
      if (failed.length > 0) return { transition: 'retry', reason: 'checks_failing', cites: failed };
      return acceptance.acceptable
        ? { transition: 'retry', reason: 'awaiting_stop_rule', cites }
        : { transition: 'retry', reason: 'acceptance_open', cites, detail: acceptance.problems.join('; ') };
    },
  };
}
