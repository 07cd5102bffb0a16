import { finding, type Check } from '../../src/core/check.js';
import { scoreCheck } from '../../src/checks/score-check.js';
import type { GuardSpecInput } from '../../src/guards/spec.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';

/** One recorded run of the fixture: what it proposes, the judge's score of each attempt, and its policy. */
interface FixtureRun {
  readonly taskType: string;
  readonly guards: GuardSpecInput[];
  readonly maxAttempts: number;
  readonly attempts: readonly (readonly [value: string, score: number])[];
}

const threshold: GuardSpecInput[] = [{ threshold: { bar: 0.8 } }];
const confirm: GuardSpecInput[] = [{ confirm: { k: 2, bar: 0.8 } }];

/**
 * Seven runs with known scores and shadow outcomes. The held-out (shadow) check passes a value starting
 * with "good", fails one starting with "bad" or "x", and errors on "oops". Where each stops:
 * - R1 threshold: x1 0.70, good1 0.85 → complete (threshold) at 2; shadow pass.
 * - R2 threshold: bad2 0.82 → complete (threshold) at 1; shadow fail (a false stop).
 * - R3 confirm-2: good3 0.81, good3b 0.79, good3c 0.83, good3 0.85 (good3 proposed again, scored again) → complete
 *   (confirm) at 4; shadow pass.
 * - R4 confirm-2, 2 attempts: bad4 0.50, bad4b 0.60 → failed (budget_attempts) at 2; shadow fail.
 * - R5 threshold, 1 attempt: good5 0.60 → failed (budget_attempts) at 1; shadow pass (a missed stop).
 * - R6 threshold: oops6 0.90 → complete (threshold) at 1; shadow error.
 * - R7 (task type "other", no shadow check) threshold: good7 0.70, good7b 0.75, good7 0.90 → complete (threshold) at 3.
 * A proposal equal to the candidate before it is no candidate (`proposer.no_change`, no score): each run
 * changes its candidate every attempt, and a candidate is scored again only when it comes back later.
 */
export const FIXTURE: readonly FixtureRun[] = [
  {
    taskType: 'fix',
    guards: threshold,
    maxAttempts: 5,
    attempts: [
      ['x1', 0.7],
      ['good1', 0.85],
    ],
  },
  { taskType: 'fix', guards: threshold, maxAttempts: 5, attempts: [['bad2', 0.82]] },
  {
    taskType: 'fix',
    guards: confirm,
    maxAttempts: 5,
    attempts: [
      ['good3', 0.81],
      ['good3b', 0.79],
      ['good3c', 0.83],
      ['good3', 0.85],
    ],
  },
  {
    taskType: 'fix',
    guards: confirm,
    maxAttempts: 2,
    attempts: [
      ['bad4', 0.5],
      ['bad4b', 0.6],
    ],
  },
  { taskType: 'fix', guards: threshold, maxAttempts: 1, attempts: [['good5', 0.6]] },
  { taskType: 'fix', guards: threshold, maxAttempts: 5, attempts: [['oops6', 0.9]] },
  {
    taskType: 'other',
    guards: threshold,
    maxAttempts: 5,
    attempts: [
      ['good7', 0.7],
      ['good7b', 0.75],
      ['good7', 0.9],
    ],
  },
];

/** When the fixture's runs start: run i at DAY + i days. */
export const DAY = Date.parse('2026-11-01T00:00:00Z');
export const DAY_MS = 86_400_000;

function heldOut(): Check {
  const check = { name: 'held-out', stage: 'fast' as const, tier: 'demand' as const, required: true, shadow: true };
  return {
    ...check,
    async run({ candidate }) {
      const value = String(candidate.value);
      if (value.startsWith('oops')) return [finding(check, 'error', ['held_out.unavailable'], 'the oracle could not run')];
      return value.startsWith('good')
        ? [finding(check, 'pass', [], 'holds')]
        : [finding(check, 'fail', ['held_out.wrong'], 'does not hold')];
    },
  };
}

/** Records the {@link FIXTURE} runs in `ledger`, through the library. */
export async function recordFixture(ledger: Ledger): Promise<void> {
  for (const [index, run] of FIXTURE.entries()) {
    const at = DAY + index * DAY_MS;
    await runMission({
      mission: defineMission({
        id: `r${index + 1}`,
        goal: 'say something good',
        taskType: run.taskType,
        budgets: { maxAttempts: run.maxAttempts },
        stopPolicy: { guards: run.guards },
      }),
      proposer: functionProposer(({ attempt }) => ({ value: run.attempts[attempt - 1]?.[0] })),
      checks: [
        scoreCheck({ name: 'judge', score: ({ attempt }) => run.attempts[attempt - 1]?.[1] ?? 0 }),
        ...(run.taskType === 'fix' ? [heldOut()] : []),
      ],
      ledger,
      _internal: { now: () => at, generateId: () => `run-${index + 1}` },
    });
  }
}

// The numbers below are worked out by hand from the fixture's table (shadow-runs.ts), not by the code.
// Task type "fix": R1 complete/pass, R2 complete/fail, R3 complete/pass, R4 failed/fail, R5 failed/pass, R6 complete/error.
const ALL = {
  key: 'all',
  runs: 6,
  observedReached: 4, // R1, R2, R3, R6 sealed complete
  observedReach: 4 / 6,
  judged: 5, // every run but R6, whose shadow errored
  trueReached: 3, // R1, R3, R5
  trueReach: 3 / 5,
  falseReached: 1, // R2: complete, shadow fail
  missedReached: 1, // R5: failed, shadow pass
  shadowErrors: 1, // R6
};
const BY_STOP_REASON = [
  // R1 (pass), R2 (fail), R6 (error)
  {
    key: 'threshold',
    runs: 3,
    observedReached: 3,
    observedReach: 1,
    judged: 2,
    trueReached: 1,
    trueReach: 1 / 2,
    falseReached: 1,
    missedReached: 0,
    shadowErrors: 1,
  },
  // R4 (fail), R5 (pass)
  {
    key: 'budget_attempts',
    runs: 2,
    observedReached: 0,
    observedReach: 0,
    judged: 2,
    trueReached: 1,
    trueReach: 1 / 2,
    falseReached: 0,
    missedReached: 1,
    shadowErrors: 0,
  },
  // R3 (pass)
  {
    key: 'confirm',
    runs: 1,
    observedReached: 1,
    observedReach: 1,
    judged: 1,
    trueReached: 1,
    trueReach: 1,
    falseReached: 0,
    missedReached: 0,
    shadowErrors: 0,
  },
];
const BY_POLICY = [
  // R1, R2, R5, R6: observed R1, R2, R6; judged R1 (pass), R2 (fail), R5 (pass)
  {
    key: 'threshold(0.8)',
    runs: 4,
    observedReached: 3,
    observedReach: 3 / 4,
    judged: 3,
    trueReached: 2,
    trueReach: 2 / 3,
    falseReached: 1,
    missedReached: 1,
    shadowErrors: 1,
  },
  // R3 (complete, pass), R4 (failed, fail)
  {
    key: 'confirm(2, 0.8)',
    runs: 2,
    observedReached: 1,
    observedReach: 1 / 2,
    judged: 2,
    trueReached: 1,
    trueReach: 1 / 2,
    falseReached: 0,
    missedReached: 0,
    shadowErrors: 0,
  },
];
// The one candidate scored more than once: good3 (0.81, 0.85; mean 0.83; squared deviations 0.0004 + 0.0004 =
// 0.0008; 1 degree of freedom). σ = √0.0008 = 0.028284.
const SIGMA = Math.sqrt(0.0008);
/** `stopQuality` of the fixture's task type "fix". */
export const EXPECTED_FIX = {
  all: ALL,
  byStopReason: BY_STOP_REASON,
  byPolicy: BY_POLICY,
  noise: { sigma: SIGMA, candidates: 1, scores: 2, degreesOfFreedom: 1, noise: 0.0283 },
};

/** Rates computed in another order differ in the last bit: compare them to 12 decimals. */
export function rounded(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, item: unknown) => (typeof item === 'number' ? Number(item.toFixed(12)) : item)));
}
