import { TRANSITIONS, type Decision, type Evidence } from './judge.js';

/** Why the runtime refused a judge's decision; each kind has a stable code. */
export interface DecisionRejection {
  readonly code:
    | 'decision.malformed'
    | 'decision.judge_failed'
    | 'decision.unknown_citation'
    | 'decision.incomplete_evidence'
    | 'decision.mission_change'
    | 'decision.undeclared_transition'
    | 'decision.admit_attempt';
  readonly message: string;
}

const MISSION_KEYS = new Set([
  'mission',
  'goal',
  'scope',
  'budgets',
  'checks',
  'stopPolicy',
  'progressWindow',
  'approvals',
  'declaredOutputs',
  'workspace',
  'maxAttempts',
]);
const ADMIT_WORDS = new Set(['admit', 'apply', 'merge', 'commit', 'push']);
const DECISION_KEYS = new Set(['transition', 'reason', 'cites', 'detail']);

/**
 * Validates a judge's raw decision against the evidence. Returns the decision, or the rejection:
 * citing findings that do not exist, accepting with incomplete evidence, changing the mission,
 * scope or budgets, naming an undeclared transition, or trying to admit the candidate.
 */
export function validateDecision(raw: unknown, evidence: Evidence): { decision: Decision } | { rejection: DecisionRejection } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      rejection: {
        code: 'decision.malformed',
        message: `expected a decision object, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}`,
      },
    };
  }
  const record = raw as Record<string, unknown>;
  const keys = Object.keys(record);
  const admitKey = keys.find((key) => ADMIT_WORDS.has(key));
  if (admitKey !== undefined || (typeof record.transition === 'string' && ADMIT_WORDS.has(record.transition))) {
    return {
      rejection: { code: 'decision.admit_attempt', message: 'a judge may not admit the candidate: admission is a separate, explicit step' },
    };
  }
  const missionKeys = keys.filter((key) => MISSION_KEYS.has(key));
  if (missionKeys.length > 0) {
    return { rejection: { code: 'decision.mission_change', message: `a judge may not change the mission (${missionKeys.join(', ')})` } };
  }
  const unknown = keys.filter((key) => !DECISION_KEYS.has(key));
  if (unknown.length > 0) return { rejection: { code: 'decision.malformed', message: `unknown decision field(s) ${unknown.join(', ')}` } };
  const { transition, reason, cites = [], detail } = record;
  if (typeof transition !== 'string' || !(TRANSITIONS as readonly string[]).includes(transition)) {
    return {
      rejection: {
        code: 'decision.undeclared_transition',
        message: `expected one of ${TRANSITIONS.join(', ')}, got ${JSON.stringify(transition)}`,
      },
    };
  }
  if (typeof reason !== 'string' || reason.length === 0)
    return { rejection: { code: 'decision.malformed', message: 'expected a non-empty reason code' } };
  if (!Array.isArray(cites) || cites.some((cite) => typeof cite !== 'string')) {
    return { rejection: { code: 'decision.malformed', message: 'expected cites to be an array of strings' } };
  }
  const missing = (cites as string[]).filter((cite) => {
    const [check, code] = cite.split('#');
    return !evidence.findings.some((item) => item.check === check && (code === undefined || item.reasonCodes.includes(code)));
  });
  if (missing.length > 0)
    return { rejection: { code: 'decision.unknown_citation', message: `cites finding(s) that do not exist: ${missing.join(', ')}` } };
  if (transition === 'noop' && (evidence.attempt !== 0 || !evidence.acceptance.acceptable || !evidence.acceptance.hasDemand)) {
    return {
      rejection: {
        code: 'decision.incomplete_evidence',
        message: 'noop needs the baseline to pass a required demand red line before any proposal',
      },
    };
  }
  if (transition === 'accept' && (evidence.attempt === 0 || !evidence.acceptance.acceptable)) {
    const why = evidence.attempt === 0 ? 'there is no candidate yet' : evidence.acceptance.problems.join('; ');
    return { rejection: { code: 'decision.incomplete_evidence', message: `accept with incomplete evidence: ${why}` } };
  }
  return {
    decision: {
      transition: transition as Decision['transition'],
      reason,
      cites: cites as string[],
      ...(typeof detail === 'string' ? { detail } : {}),
    },
  };
}
