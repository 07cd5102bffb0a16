import type { Candidate } from '../core/candidate.js';
import type { Finding } from '../core/finding.js';
import type { ProposerAccount } from '../core/proposer-account.js';
import type { AttemptSummary } from '../guards/guard.js';
import { changedNothing, failedOnEnvironment } from '../proposers/no-change.js';
import type { Usage } from '../proposers/proposer.js';
import { madeProgress } from './progress.js';
import { failingCodes, rejectionFingerprint, stateSignature } from './signature.js';
import { frontierOf, SIGNATURES_SHOWN, type WorkingState } from './working-state.js';

/** What a run's check plan fixes for every step: the same for a resumed run. */
export interface StepContext {
  /** Names of the required checks. */
  readonly required: ReadonlySet<string>;
  /** Names of the required checks of the promotion stage (the harder stage). */
  readonly promotion: ReadonlySet<string>;
  /** The check plan's hash, part of every state signature. */
  readonly plan: string;
  /** How many attempt summaries the working state keeps: the most any guard of the policy reads. */
  readonly lookback: number;
}

/** What one attempt produced: the candidate it left, its findings, what it spent and when it ended. */
export interface AttemptEvidence {
  /** The candidate after the attempt (the previous one when the proposal failed or changed nothing). */
  readonly candidate: Candidate;
  readonly findings: readonly Finding[];
  /** Tokens and cost the attempt spent, as reported. */
  readonly usage: Usage;
  /** How the proposer's program ran, when it ran one. */
  readonly account?: ProposerAccount | undefined;
  /** The run's clock when the attempt's checks ended, in ms since the run started. */
  readonly elapsedMs: number;
}

/** The last `count` items (none for 0). */
const last = <T>(items: readonly T[], count: number): T[] => items.slice(Math.max(0, items.length - count));

/**
 * One attempt's step of the working state (pure: no I/O, no clock): its summary — signature, rejection
 * fingerprint, score, progress against the frontier — and the state after it, with the counters charged,
 * the frontier advanced (unless a check had an infrastructure error) and the bounded windows moved on.
 * An attempt whose proposal changed nothing (its findings say `proposer.no_change`, followed by the
 * findings that still hold) ran no check: it leaves the frontier where it was, makes no progress and has
 * no score of its own, its signature is the unchanged state's, and it fails when those findings do — it is
 * evidence for the thrash guards, never an infrastructure error.
 * The loop steps after each attempt; recovery steps over the recorded attempts, so a resumed run's state,
 * and the verdicts the guards give on it, are those of the run without the interruption.
 */
export function step(
  state: WorkingState,
  evidence: AttemptEvidence,
  context: StepContext,
): { state: WorkingState; summary: AttemptSummary } {
  const { candidate, findings, usage, account } = evidence;
  const attempt = state.attempt + 1;
  const noChange = changedNothing(findings);
  const failing = failingCodes(findings, context.required);
  const infraError = !noChange && findings.some((item) => item.status === 'error');
  const frontier = noChange
    ? state.frontier
    : frontierOf(candidate, findings, context.required, context.promotion, state.frontier.bestScore);
  const progress = !noChange && !infraError && madeProgress(state.frontier, frontier);
  const signature = stateSignature(candidate.hash, context.plan, frontier.completed, failing);
  // The findings an unchanged candidate carries are an earlier attempt's: their score was observed then.
  const scores = noChange ? [] : findings.flatMap((item) => (item.score === undefined ? [] : [item.score]));
  const summary: AttemptSummary = {
    attempt,
    candidateHash: candidate.hash,
    signature,
    rejection: rejectionFingerprint(failing),
    ...(scores.length === 0 ? {} : { score: Math.min(...scores) }),
    failing: failing.length,
    // The failures an unchanged candidate carries still stand: its round failed too (the human gate counts it).
    failed: findings.some((item) => context.required.has(item.check) && item.status === 'fail'),
    infraError,
    progress,
    ...(noChange ? { noChange: true as const } : {}),
    ...(failedOnEnvironment(findings) ? { environment: true as const } : {}),
  };
  const { counters } = state;
  return {
    summary,
    state: {
      attempt,
      candidate,
      findings,
      ...(account === undefined ? {} : { account }),
      // Infrastructure errors are not evidence: the frontier and the progress count stay where they were.
      frontier: infraError ? state.frontier : frontier,
      counters: {
        attempts: attempt,
        inputTokens: counters.inputTokens + (usage.inputTokens ?? 0),
        outputTokens: counters.outputTokens + (usage.outputTokens ?? 0),
        costUsd: counters.costUsd + (usage.costUsd ?? 0),
        elapsedMs: evidence.elapsedMs,
        sinceProgress: infraError ? counters.sinceProgress : progress ? 0 : counters.sinceProgress + 1,
        failedRounds: counters.failedRounds + (summary.failed ? 1 : 0),
      },
      recent: last([...state.recent, summary], context.lookback),
      signatures: last([...state.signatures, signature], SIGNATURES_SHOWN),
    },
  };
}
