import { EMPTY_CANDIDATE, type Candidate } from '../core/candidate.js';
import type { Finding } from '../core/finding.js';
import type { ProposerAccount } from '../core/proposer-account.js';
import type { AttemptSummary, RunCounters } from '../guards/guard.js';
import type { Frontier } from './progress.js';
import { completedChecks, failingCodes } from './signature.js';

/** How many state signatures the proposer sees. */
export const SIGNATURES_SHOWN = 8;

/** The bounded working state: its size does not depend on how many attempts ran. */
export interface WorkingState {
  /** Attempts made (0 before the first proposal). */
  readonly attempt: number;
  /** The latest candidate (the empty one before any). */
  readonly candidate: Candidate;
  /** The findings of the latest check set (the baseline's before any attempt). */
  readonly findings: readonly Finding[];
  /** The latest attempt's proposer account, when its proposer ran a program: what the brief tells of it. */
  readonly account?: ProposerAccount;
  readonly counters: RunCounters;
  /** The summaries of the last `lookback` attempts, oldest first: what the guards read. */
  readonly recent: readonly AttemptSummary[];
  /** The last {@link SIGNATURES_SHOWN} state signatures: what the proposer sees. */
  readonly signatures: readonly string[];
  readonly frontier: Frontier;
}

/** The state of a run before its first record. */
export function initialState(): WorkingState {
  return {
    attempt: 0,
    candidate: EMPTY_CANDIDATE,
    findings: [],
    counters: { attempts: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, elapsedMs: 0, sinceProgress: 0, failedRounds: 0 },
    recent: [],
    signatures: [],
    frontier: { completed: [], failing: [], hardFailing: [], footprint: 0 },
  };
}

/**
 * The frontier a check set establishes: what completed, what fails (over required checks, and over the
 * promotion stage), the candidate's footprint, and the best score so far.
 */
export function frontierOf(
  candidate: Candidate,
  findings: readonly Finding[],
  required: ReadonlySet<string>,
  promotion: ReadonlySet<string>,
  previousBest: number | undefined,
): Frontier {
  const scores = findings.flatMap((item) => (item.score === undefined ? [] : [item.score]));
  const best = Math.max(previousBest ?? -Infinity, ...scores);
  return {
    completed: completedChecks(findings),
    failing: failingCodes(findings, required),
    hardFailing: failingCodes(findings, promotion),
    footprint: candidate.footprint.length,
    ...(Number.isFinite(best) ? { bestScore: best } : {}),
  };
}
