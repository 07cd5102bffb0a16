import { z } from 'zod';
import type { Acceptance } from '../core/acceptance.js';
import { evaluatePolicy, policyLookback, type AttemptSummary, type BudgetLimits, type RunCounters } from '../guards/guard.js';
import { runtimeGuards } from '../guards/no-change.js';
import { buildPolicy, guardSpecSchema, needsPriors } from '../guards/spec.js';
import { parseRecord } from '../ledger/chain.js';
import { streamHistory } from '../ledger/history.js';
import type { Ledger, RunFilter, RunRecord } from '../ledger/ledger.js';
import { recordsOf } from '../ledger/run-records.js';

export const replayPolicySchema = z
  .object({
    name: z.string().min(1),
    guards: z.array(guardSpecSchema),
  })
  .strict();

/** A policy file of several policies, under `policies`; a file without that key is one {@link replayPolicySchema}. */
export const policyListSchema = z.object({ policies: z.array(replayPolicySchema).min(1) }).strict();

export type ReplayPolicy = z.infer<typeof replayPolicySchema>;

/** What one policy would have done over the recorded runs. */
export interface PolicyReplay {
  readonly policy: string;
  readonly runs: number;
  /** Attempts the policy would have used, over runs where it stopped within the recorded evidence. */
  readonly attempts: number;
  readonly recordedAttempts: number;
  readonly stoppedEarlier: number;
  readonly stoppedSame: number;
  /** Runs where the policy would have gone on past the recorded end: their reach is unknown. */
  readonly stoppedLater: number;
  /** Runs whose candidate at the policy's stop met acceptance, of those it stopped within the evidence. */
  readonly reached: number;
  readonly recordedReached: number;
  /** Present when some run's seal holds a shadow verdict (a mission with shadow checks): true reach, next to the observed. */
  readonly shadow?: ShadowReplay;
}

/**
 * True reach from the shadow verdicts. The shadow checks judged only the candidate each run stopped on, so
 * a policy's true reach is known where it stops on that same candidate (same content hash).
 */
export interface ShadowReplay {
  /** Runs where the policy stopped on the candidate the shadow judged, with a verdict of pass or fail. */
  readonly judged: number;
  /** Of those, the runs whose shadow passed. */
  readonly trueReached: number;
  /** Runs whose seal holds a shadow verdict of pass or fail: the recorded policy's true reach is known for all. */
  readonly recordedJudged: number;
  readonly recordedTrueReached: number;
}

interface AttemptEvidence {
  readonly summary: AttemptSummary;
  readonly counters: RunCounters;
  readonly acceptance?: Acceptance;
  /** The recorded decision's reason, when the runtime (not the stop policy) ended the run there. */
  readonly policyIndependent?: string;
}

/** Stops the routing table makes whatever the stop policy: replay keeps them where they were. */
const POLICY_INDEPENDENT = new Set(['scope_violation', 'approval_missing', 'invalid_decision']);

/** The recorded attempts of a run with the acceptance the runtime computed for each. */
function attemptsOf(records: readonly RunRecord[]): AttemptEvidence[] {
  const evidence: AttemptEvidence[] = [];
  for (const record of records) {
    if (record.type === 'attempt' && record.data.summary !== undefined && record.data.counters !== undefined)
      evidence.push({ summary: record.data.summary, counters: record.data.counters });
    if (record.type === 'decision' && record.data.attempt > 0) {
      const last = evidence.at(-1);
      const reason = record.data.decision?.reason ?? (record.data.rejection === undefined ? undefined : 'invalid_decision');
      // Fields named, not `...last`: spreading the previous object here made every run leave garbage in V8's
      // old space (peak memory 1.23× higher at 50,000 runs than at 5,000; measured with bench/scale).
      if (last !== undefined)
        evidence[evidence.length - 1] = {
          summary: last.summary,
          counters: last.counters,
          ...(record.data.acceptance === undefined ? {} : { acceptance: record.data.acceptance }),
          ...(reason !== undefined && POLICY_INDEPENDENT.has(reason) ? { policyIndependent: reason } : {}),
        };
    }
  }
  return evidence;
}

/** Where `policy` would have stopped a recorded run: the attempt, and whether its candidate was accepted there. */
function replayRun(
  records: readonly RunRecord[],
  policy: ReplayPolicy,
): { stop?: number; reached: boolean; recorded: number; recordedReached: boolean } {
  const [started] = records;
  const last = records.at(-1);
  const outcome = last?.type === 'run.sealed' ? last.data.outcome : undefined;
  const recordedReached = outcome === 'complete' || outcome === 'complete_noop';
  const attempts = attemptsOf(records);
  const recorded = attempts.length;
  if (outcome === 'complete_noop') return { stop: 0, reached: true, recorded, recordedReached };
  // A run whose mission was recorded without its budgets (no redline version did) gives no stop to replay.
  if (started?.type !== 'run.started') return { reached: false, recorded, recordedReached };
  const { budgets: missionBudgets, progressWindow, taskType } = started.data.mission;
  if (missionBudgets === undefined || progressWindow === undefined) return { reached: false, recorded, recordedReached };
  const limits: BudgetLimits = {
    maxAttempts: missionBudgets.maxAttempts,
    ...(missionBudgets.maxTokens === undefined ? {} : { maxTokens: missionBudgets.maxTokens }),
    ...(missionBudgets.maxWallClock === undefined ? {} : { maxWallClockMs: missionBudgets.maxWallClock }),
    ...(missionBudgets.maxCostUsd === undefined ? {} : { maxCostUsd: missionBudgets.maxCostUsd }),
  };
  // The runtime's own guards bind every run, whatever its policy: a replay stacks them as the loop does.
  const guards = [...runtimeGuards(), ...buildPolicy(policy.guards)];
  const lookback = Math.max(policyLookback(guards), progressWindow);
  for (const [index, attempt] of attempts.entries()) {
    const acceptance = attempt.acceptance;
    // A demand red line that holds ends the run whatever the policy: that stop is not the policy's to make.
    if (acceptance?.acceptable === true && acceptance.hasDemand) return { stop: index + 1, reached: true, recorded, recordedReached };
    if (attempt.policyIndependent !== undefined) return { stop: index + 1, reached: false, recorded, recordedReached };
    const verdict = evaluatePolicy(guards, {
      recent: attempts.slice(Math.max(0, index + 1 - lookback), index + 1).map((item) => item.summary),
      counters: attempt.counters,
      budgets: limits,
      progressWindow,
      taskType: taskType ?? 'default',
    });
    if (verdict === undefined) continue;
    if (verdict.outcome !== 'complete') return { stop: index + 1, reached: false, recorded, recordedReached };
    if (acceptance?.acceptable === true) return { stop: index + 1, reached: true, recorded, recordedReached };
  }
  return { reached: false, recorded, recordedReached };
}

/** A sealed run's shadow verdict, when it is conclusive, with the candidate it judged. */
function shadowOf(records: readonly RunRecord[]): { passed: boolean; candidateHash: string } | 'none' | 'inconclusive' {
  const seal = records.at(-1);
  if (seal?.type !== 'run.sealed' || seal.data.shadow === undefined) return 'none';
  const { verdict } = seal.data.shadow;
  const { candidateHash } = seal.data;
  if (verdict === 'error' || candidateHash === undefined) return 'inconclusive';
  return { passed: verdict === 'pass', candidateHash };
}

/** The content hash of the candidate a run held after `attempt` attempts (0: the baseline, as sealed by a noop run). */
function candidateAfter(records: readonly RunRecord[], attempt: number): string | undefined {
  if (attempt === 0) {
    const seal = records.at(-1);
    return seal?.type === 'run.sealed' ? seal.data.candidateHash : undefined;
  }
  return recordsOf(records, 'attempt').find((item) => item.data.attempt === attempt)?.data.summary?.candidateHash;
}

/**
 * What-if replay: evaluates stop policies over recorded runs' histories. For each policy, reports the
 * attempts it would have used, how many runs it would have stopped earlier, at the same attempt or later
 * than recorded, and how many of its stops had an accepted candidate (using the recorded evidence of
 * attempts the run went on to make). A policy with an `adaptive` guard is refused: its verdicts depend on
 * the priors as they stood when each run started, which the ledger does not keep. The runs are read as a
 * stream (`streamHistory`), one run's records parsed at a time: memory does not grow with the number of runs.
 * Where runs hold a shadow verdict (missions with shadow checks), each policy's true reach is reported too
 * ({@link ShadowReplay}).
 */
export async function replayPolicies(
  ledger: Ledger,
  policies: readonly ReplayPolicy[],
  filter: Omit<RunFilter, 'unsealed'> = {},
): Promise<PolicyReplay[]> {
  const adaptive = policies.find((policy) => needsPriors(policy.guards));
  if (adaptive !== undefined)
    throw new TypeError(
      `Expected policies without an \`adaptive\` guard (replay cannot rebuild the priors each run started with), got one in "${adaptive.name}"`,
    );
  const totals = policies.map(() => ({
    attempts: 0,
    recordedAttempts: 0,
    stoppedEarlier: 0,
    stoppedSame: 0,
    stoppedLater: 0,
    reached: 0,
    recordedReached: 0,
    shadow: { judged: 0, trueReached: 0, recordedJudged: 0, recordedTrueReached: 0 },
  }));
  let runs = 0;
  let shadowed = false;
  // One run's records at a time: every policy is evaluated on it, then only the totals are kept.
  for await (const { run, records: stored } of streamHistory(ledger, { filter })) {
    if (!run.sealed) continue;
    runs += 1;
    const records = stored.map(parseRecord);
    const shadow = shadowOf(records);
    if (shadow !== 'none') shadowed = true;
    for (const [index, policy] of policies.entries()) {
      const sum = totals[index] as (typeof totals)[number];
      const result = replayRun(records, policy);
      if (typeof shadow === 'object') {
        sum.shadow.recordedJudged += 1;
        if (shadow.passed) sum.shadow.recordedTrueReached += 1;
        if (result.stop !== undefined && candidateAfter(records, result.stop) === shadow.candidateHash) {
          sum.shadow.judged += 1;
          if (shadow.passed) sum.shadow.trueReached += 1;
        }
      }
      sum.recordedAttempts += result.recorded;
      if (result.recordedReached) sum.recordedReached += 1;
      if (result.stop === undefined) {
        sum.stoppedLater += 1;
        continue;
      }
      sum.attempts += result.stop;
      if (result.stop < result.recorded) sum.stoppedEarlier += 1;
      else if (result.stop === result.recorded) sum.stoppedSame += 1;
      else sum.stoppedLater += 1;
      if (result.reached) sum.reached += 1;
    }
  }
  return policies.map((policy, index) => {
    const { shadow, ...sum } = totals[index] as (typeof totals)[number];
    return { policy: policy.name, runs, ...sum, ...(shadowed ? { shadow } : {}) };
  });
}
