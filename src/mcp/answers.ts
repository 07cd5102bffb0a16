import type { Candidate } from '../core/candidate.js';
import type { Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import type { Outcome, Verification } from '../core/outcome.js';
import type { RunResult } from '../loop/run-mission.js';
import type { Mission } from '../mission/mission.js';
import type { BudgetsLeft, ProposalRequest } from '../proposers/proposer.js';
import { agentFindings, agentText, type AgentFinding } from './agent-text.js';
import type { RunEnd, SessionRun } from './session-run.js';

// What each tool answers, as the structured content the agent reads, and the text a tool result carries (a
// summary line and the same JSON). Every string that came from the workspace, a check or a test passes
// through agent-text first, and every answer fits ANSWER_BUDGET, so a client never cuts one.

/** Bytes (UTF-8) of a tool answer's text at most: its summary line and its JSON. */
export const ANSWER_BUDGET = 32 * 1024;

/** Room kept for the summary line, which is written after the answer is fitted. */
const SUMMARY_ROOM = 1024;

/** Bytes of changed paths a `redline_checks` answer lists at most. */
const FOOTPRINT_ROOM = 4096;

interface Evidence {
  readonly findings: readonly AgentFinding[];
  /** Findings left out to fit the answer. */
  readonly omitted: number;
}

/** `redline_checks`: the working copy's findings; `passed` when every required check ran and passed. */
export interface ChecksAnswer extends Evidence {
  readonly passed: boolean;
  readonly footprint: readonly string[];
  /** Changed paths left out of `footprint` to fit the answer. */
  readonly footprintOmitted: number;
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

/** Checks running now: the run's baseline (when the session started), a submit's or a `redline_checks` call's. */
export interface Running {
  readonly checks: 'baseline' | 'redline_submit' | 'redline_checks';
  /** Since when, in milliseconds. */
  readonly elapsedMs: number;
}

/** `redline_status`: no run yet, a run open, or a sealed one; and the checks running now, whatever the state. */
export type StatusAnswer = { readonly running: readonly Running[] } & (
  | { readonly state: 'none'; readonly budgetsLeft: BudgetsLeft }
  | (Evidence & { readonly state: 'open'; readonly runId: string; readonly attempts: number; readonly budgetsLeft: BudgetsLeft })
  | (Evidence & Sealed & { readonly state: 'sealed' })
);

export type Answer = ChecksAnswer | RunAnswer | StatusAnswer;

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** `answer` with as many of `findings` as fit the answer budget beside the rest of it. */
function withFindings<T extends object>(answer: T, findings: readonly Finding[]): T & Evidence {
  // The count is at most as long as the number of findings.
  const skeleton = { ...answer, findings: [], omitted: findings.length };
  return { ...answer, ...agentFindings(findings, { bytes: ANSWER_BUDGET - SUMMARY_ROOM - bytesOf(skeleton) }) };
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

/** The candidate's changed paths, as many as fit their room. */
function footprintOf(candidate: Candidate): { footprint: string[]; footprintOmitted: number } {
  const footprint: string[] = [];
  let used = 2;
  for (const file of candidate.footprint) {
    const shown = agentText(file, 500);
    used += bytesOf(shown) + 1;
    if (used > FOOTPRINT_ROOM) break;
    footprint.push(shown);
  }
  return { footprint, footprintOmitted: candidate.footprint.length - footprint.length };
}

export function checksAnswer(checks: readonly Check[], candidate: Candidate, findings: readonly Finding[]): ChecksAnswer {
  return withFindings({ passed: requiredPassed(checks, findings), ...footprintOf(candidate) }, findings);
}

/** The mission's budgets less what `attempts` attempts and `elapsedMs` spent. */
function budgetsLeft(mission: Mission, attempts: number, elapsedMs?: number): BudgetsLeft {
  const { maxAttempts, maxWallClock } = mission.budgets;
  return {
    attempts: Math.max(0, maxAttempts - attempts),
    ...(maxWallClock === undefined ? {} : { wallClockMs: Math.max(0, maxWallClock - (elapsedMs ?? 0)) }),
  };
}

function sealed(mission: Mission, result: RunResult): Sealed {
  return {
    runId: result.runId,
    attempts: result.attempts,
    outcome: result.outcome,
    verification: result.verification,
    stopReason: result.stopReason,
    detail: agentText(result.detail, 1000),
    ...(result.guard === undefined ? {} : { guard: agentText(result.guard, 200) }),
    budgetsLeft: budgetsLeft(mission, result.attempts, result.counters.elapsedMs),
  };
}

/**
 * What a submit led to. A run refused before its first record (a budget it cannot measure, a plan that
 * thrashed before) has no answer: its error is thrown for the tool to report.
 */
export function runAnswer(mission: Mission, run: SessionRun, next: ProposalRequest | RunEnd): RunAnswer {
  if ('error' in next) throw next.error;
  if ('result' in next) return withFindings({ decision: 'stop' as const, ...sealed(mission, next.result) }, next.result.findings);
  const { attempts, reason } = run.position;
  const answer = {
    decision: 'continue' as const,
    runId: run.runId as string,
    attempt: attempts,
    reason: agentText(reason ?? 'checks_failing', 300),
    budgetsLeft: next.state.budgetsLeft,
  };
  return withFindings(answer, next.state.findings);
}

export function statusAnswer(mission: Mission, run: SessionRun | undefined, running: readonly Running[]): StatusAnswer {
  if (run?.runId === undefined) {
    if (run?.end !== undefined && 'error' in run.end) throw run.end.error;
    return { state: 'none', running, budgetsLeft: budgetsLeft(mission, 0) };
  }
  const end = run.end;
  if (end !== undefined && 'error' in end) throw end.error;
  if (end !== undefined) return withFindings({ state: 'sealed' as const, running, ...sealed(mission, end.result) }, end.result.findings);
  const position = run.position;
  const answer = {
    state: 'open' as const,
    running,
    runId: run.runId,
    attempts: position.attempts,
    budgetsLeft: position.budgetsLeft ?? budgetsLeft(mission, position.attempts),
  };
  return withFindings(answer, position.findings);
}

const failingCount = (answer: Answer): number =>
  'findings' in answer ? answer.findings.filter((item) => item.status === 'fail' || item.status === 'error').length : 0;

const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

/** The answer in one line, for clients that show the text before the JSON. */
function summaryOf(answer: Answer): string {
  const failing = failingCount(answer);
  const omitted = 'omitted' in answer && answer.omitted > 0 ? ` (${answer.omitted} more left out)` : '';
  if ('passed' in answer)
    return answer.passed ? 'passed: every required check passed' : `not passed: ${failing} failing finding(s)${omitted}`;
  const sealedLine =
    'outcome' in answer ? `run ${answer.runId} sealed ${answer.outcome} / ${answer.verification} (${answer.stopReason})` : '';
  if ('decision' in answer)
    return answer.decision === 'stop'
      ? `stop: ${sealedLine}`
      : `continue: attempt ${answer.attempt} of run ${answer.runId} did not pass (${agentText(answer.reason, 200)}), ${failing} failing finding(s)${omitted}; ${answer.budgetsLeft.attempts} attempt(s) left`;
  const running = answer.running.map((item) => `${item.checks} checks running for ${seconds(item.elapsedMs)}`).join(', ');
  const state =
    answer.state === 'none'
      ? 'no run yet: the session is starting'
      : answer.state === 'sealed'
        ? sealedLine
        : `run ${answer.runId} open after ${answer.attempts} attempt(s)`;
  return running === '' ? state : `${state}; ${running}`;
}

/** A tool result's text: the summary line, then the answer as JSON. */
export function answerText(answer: Answer): string {
  return `${summaryOf(answer)}\n${JSON.stringify(answer)}`;
}
