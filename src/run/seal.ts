import type { BaselineSource } from '../core/brief-baseline.js';
import { makeBrief, type Brief } from '../core/brief.js';
import type { Candidate } from '../core/candidate.js';
import type { Finding } from '../core/finding.js';
import type { ProposerAccount } from '../core/proposer-account.js';
import type { Verification } from '../core/outcome.js';
import type { RunCounters } from '../guards/guard.js';
import { handOff, reportRun, type HandoffPlan, type RunHandoff } from '../handoff/handoff.js';
import type { SealedData } from '../ledger/run-records.js';
import type { Ending } from './ending.js';

/** Where a run stands when it is sealed. */
export interface SealPosition {
  /** Attempts made, the one under way included. */
  readonly attempt: number;
  /** The candidate the run stopped on. */
  readonly candidate: Candidate;
  /** The findings of its last check set. */
  readonly findings: readonly Finding[];
  /** The last attempt's proposer account, when it has one: the brief tells it next to the last error. */
  readonly account?: ProposerAccount;
  readonly counters: RunCounters;
}

export interface SealOptions {
  readonly runId: string;
  readonly ending: Ending;
  readonly verification: Verification;
  readonly position: SealPosition;
  /** What the brief takes from the mission. */
  readonly mission: {
    readonly goal: string;
    readonly taskType: string;
    readonly priority: number;
    readonly stripPatterns?: readonly string[] | undefined;
  };
  /** The run's snapshot, for the brief to keep each changed file as the run started; none without a workspace. */
  readonly baseline?: BaselineSource | undefined;
  /**
   * The review queue, with the plan the run started under (none under a deferred queue, which the seal
   * opens only if the run must be reviewed); without one nothing is handed off.
   */
  readonly handoff?: { readonly handoff: RunHandoff; readonly plan: HandoffPlan | undefined } | undefined;
  /** What only the live run adds to its seal, asked after the handoff: the workspace's account, the shadow verdict. */
  readonly atSeal?: () => Promise<Pick<SealedData, 'baseline' | 'evidence' | 'shadow'>>;
  /** Appends the seal record (signed, when the run has a signer). */
  readonly append: (data: SealedData) => Promise<void>;
}

/**
 * The one way a run is sealed — at the end of the loop, when it is stopped (its caller, its wall clock),
 * when its runtime throws, and by recovery when its process crashed: the brief, the handoff to the review
 * queue (enqueued before the seal is written, so the seal records what the queue did; a crash in between
 * re-enqueues on resume, which the queue ignores for a run it holds), the seal record, then the run's
 * report for budget-cap alerts. Returns the seal's data and the brief it carries (blocked or unverified runs).
 */
export async function sealRun({
  runId,
  ending,
  verification,
  position,
  mission,
  baseline,
  handoff,
  atSeal,
  append,
}: SealOptions): Promise<{ data: SealedData; brief?: Brief }> {
  const { outcome, stopReason, detail, guard } = ending;
  const fullBrief = makeBrief({
    runId,
    task: mission.goal,
    taskType: mission.taskType,
    priority: mission.priority,
    candidate: position.candidate,
    cutoffReason: `${stopReason}: ${detail}`,
    attempts: position.attempt,
    verification,
    findings: position.findings,
    account: position.account,
    stripPatterns: mission.stripPatterns,
    baseline,
  });
  const brief = outcome === 'blocked' || verification === 'unverified' ? fullBrief : undefined;
  const handed =
    handoff === undefined
      ? undefined
      : await handOff(handoff.handoff, { runId, outcome, verification, stopReason, brief: fullBrief }, handoff.plan);
  const queued = handed?.result;
  const live = atSeal === undefined ? {} : await atSeal();
  const data: SealedData = {
    outcome,
    verification,
    stopReason,
    detail,
    ...(guard === undefined ? {} : { guard }),
    attempts: position.attempt,
    candidateHash: position.candidate.hash,
    counters: position.counters,
    ...(brief === undefined ? {} : { brief }),
    ...(queued === undefined ? {} : { handoff: queued }),
    ...live,
  };
  await append(data);
  if (handed?.to !== undefined) await reportRun(handed.to, { runId, stopReason });
  return { data, ...(brief === undefined ? {} : { brief }) };
}
