import type { Candidate } from '../core/candidate.js';
import type { Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import type { Outcome, Verification } from '../core/outcome.js';
import type { RunResult } from '../loop/run-mission.js';
import type { Mission } from '../mission/mission.js';
import type { BudgetsLeft, ProposalRequest } from '../proposers/proposer.js';
import { agentFindings, agentText, type AgentFinding } from './agent-text.js';
import type { RunEnd, SessionRun } from './session-run.js';

// What each tool answers, as the structured content the agent reads. Every string that came from the
// workspace, a check or a test passes through agent-text first.

/** Paths of a footprint the agent is shown. */
const FOOTPRINT_CAP = 200;

interface Evidence {
  readonly findings: readonly AgentFinding[];
  /** Findings left out past the cap. */
  readonly omitted: number;
}

/** `redline_checks`: the working copy's findings; `passed` when every required check ran and passed. */
export interface ChecksAnswer extends Evidence {
  readonly passed: boolean;
  readonly footprint: readonly string[];
}

/** How a sealed run ended. */
export interface Sealed {
  readonly runId: string;
  readonly attempts: number;
  readonly outcome: Outcome;
  readonly verification: Verification;
  readonly stopReason: string;
  readonly detail: string;
  readonly guard?: string;
  readonly budgetsLeft: BudgetsLeft;
}

/** `redline_submit`: go on (the run waits for the next submit), or the run is sealed. */
export type RunAnswer =
  | (Evidence & {
      readonly decision: 'continue';
      readonly runId: string;
      readonly attempt: number;
      readonly reason: string;
      readonly budgetsLeft: BudgetsLeft;
    })
  | (Evidence & Sealed & { readonly decision: 'stop' });

/** `redline_status`: no run yet, a run waiting for a submit, or a sealed one. */
export type StatusAnswer =
  | { readonly state: 'none'; readonly budgetsLeft: BudgetsLeft }
  | (Evidence & { readonly state: 'open'; readonly runId: string; readonly attempts: number; readonly budgetsLeft: BudgetsLeft })
  | (Evidence & Sealed & { readonly state: 'sealed' });

function evidence(findings: readonly Finding[]): Evidence {
  return agentFindings(findings);
}

/** Whether every required check ran and all of its findings passed. */
function requiredPassed(checks: readonly Check[], findings: readonly Finding[]): boolean {
  return checks
    .filter((check) => check.required)
    .every((check) => {
      const own = findings.filter((finding) => finding.check === check.name);
      return own.length > 0 && own.every((finding) => finding.status === 'pass');
    });
}

export function checksAnswer(checks: readonly Check[], candidate: Candidate, findings: readonly Finding[]): ChecksAnswer {
  return {
    passed: requiredPassed(checks, findings),
    footprint: candidate.footprint.slice(0, FOOTPRINT_CAP).map((file) => agentText(file, 500)),
    ...evidence(findings),
  };
}

/** The mission's budgets less what `attempts` attempts and `elapsedMs` spent. */
function budgetsLeft(mission: Mission, attempts: number, elapsedMs?: number): BudgetsLeft {
  const { maxAttempts, maxWallClock } = mission.budgets;
  return {
    attempts: Math.max(0, maxAttempts - attempts),
    ...(maxWallClock === undefined ? {} : { wallClockMs: Math.max(0, maxWallClock - (elapsedMs ?? 0)) }),
  };
}

function sealed(mission: Mission, result: RunResult): Sealed & Evidence {
  return {
    runId: result.runId,
    attempts: result.attempts,
    outcome: result.outcome,
    verification: result.verification,
    stopReason: result.stopReason,
    detail: agentText(result.detail),
    ...(result.guard === undefined ? {} : { guard: result.guard }),
    budgetsLeft: budgetsLeft(mission, result.attempts, result.counters.elapsedMs),
    ...evidence(result.findings),
  };
}

/**
 * What a submit led to. A run refused before its first record (a budget it cannot measure, a plan that
 * thrashed before) has no answer: its error is thrown for the tool to report.
 */
export function runAnswer(mission: Mission, run: SessionRun, next: ProposalRequest | RunEnd): RunAnswer {
  if ('error' in next) throw next.error;
  if ('result' in next) return { decision: 'stop', ...sealed(mission, next.result) };
  const { attempts, reason } = run.position;
  return {
    decision: 'continue',
    runId: run.runId as string,
    attempt: attempts,
    reason: reason ?? 'checks_failing',
    budgetsLeft: next.state.budgetsLeft,
    ...evidence(next.state.findings),
  };
}

export function statusAnswer(mission: Mission, run: SessionRun | undefined): StatusAnswer {
  if (run === undefined) return { state: 'none', budgetsLeft: budgetsLeft(mission, 0) };
  const end = run.end;
  if (end !== undefined && 'error' in end) throw end.error;
  if (end !== undefined) return { state: 'sealed', ...sealed(mission, end.result) };
  const position = run.position;
  return {
    state: 'open',
    runId: run.runId as string,
    attempts: position.attempts,
    budgetsLeft: position.budgetsLeft ?? budgetsLeft(mission, position.attempts),
    ...evidence(position.findings),
  };
}
