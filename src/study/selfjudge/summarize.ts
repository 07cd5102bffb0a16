import { meanSd, type MeanSd } from '../stats.js';
import { fisherExact, trialsPerCondition, wilson, type Proportion } from '../proportions.js';
import type { PromptRecord } from './published-roles.js';
import type { Condition } from './task-mission.js';
import type { Truth } from './truth.js';

/** One trial: a sealed run of one task under one condition, and what the tests said of every attempt. */
export interface TrialResult {
  readonly task: string;
  /** The task's class, in a task set that has classes. */
  readonly taskClass?: string;
  readonly condition: Condition;
  /** 1-based. */
  readonly trial: number;
  readonly runId: string;
  readonly missionId: string;
  readonly outcome: string;
  readonly stopReason: string;
  readonly attempts: number;
  /** The tests' verdict on each attempt's candidate, attempt 1 first. */
  readonly truth: readonly Truth[];
  /** What the judge chose after each attempt (`accept`, `retry`, …), attempt 1 first. */
  readonly decisions: readonly string[];
  /** Under a published protocol: every prompt the trial sent and the answer it got, in order. */
  readonly prompts?: readonly PromptRecord[];
  /** The run stopped as done (sealed `complete` or `complete_noop`): its judge said yes. */
  readonly saidYes: boolean;
  /** The tests pass on the candidate the run stopped on. */
  readonly converged: boolean;
  /** The judge said yes and the tests fail at the stop. */
  readonly falsePositive: boolean;
  /** The tests passed at some attempt and the judge said no there. */
  readonly falseNegative: boolean;
  /** Correct code was later made incorrect by a further attempt. */
  readonly degraded: boolean;
  /** The first attempt whose candidate passes the tests; null when none did. */
  readonly firstPass: number | null;
}

/** Trial facts from the records: per-attempt truth and decisions, and the candidate's truth at the stop. */
export function analyseTrial(
  base: Omit<TrialResult, 'saidYes' | 'converged' | 'falsePositive' | 'falseNegative' | 'degraded' | 'firstPass'>,
  atStop: Truth,
): TrialResult {
  const { truth, decisions, outcome } = base;
  const saidYes = outcome === 'complete' || outcome === 'complete_noop';
  const firstIndex = truth.indexOf('pass');
  return {
    ...base,
    saidYes,
    converged: atStop === 'pass',
    falsePositive: saidYes && atStop === 'fail',
    falseNegative: truth.some((verdict, index) => verdict === 'pass' && decisions[index] !== 'accept'),
    degraded: firstIndex >= 0 && truth.slice(firstIndex + 1).some((verdict) => verdict === 'fail'),
    firstPass: firstIndex < 0 ? null : firstIndex + 1,
  };
}

/** The rates of one task (or all tasks, `task: 'all'`) under one condition. */
export interface CellSummary {
  readonly task: string;
  readonly condition: Condition;
  readonly trials: number;
  readonly converged: Proportion;
  readonly falsePositives: Proportion;
  readonly falseNegatives: Proportion;
  readonly degradations: Proportion;
  /** Attempts of each trial, in trial order. */
  readonly attempts: readonly number[];
  readonly meanAttempts: MeanSd;
}

/** Summarises trials of one task and condition. */
export function summarise(task: string, condition: Condition, trials: readonly TrialResult[]): CellSummary {
  const count = (pick: (trial: TrialResult) => boolean): Proportion => wilson(trials.filter(pick).length, trials.length);
  const attempts = trials.map((trial) => trial.attempts);
  return {
    task,
    condition,
    trials: trials.length,
    converged: count((trial) => trial.converged),
    falsePositives: count((trial) => trial.falsePositive),
    falseNegatives: count((trial) => trial.falseNegative),
    degradations: count((trial) => trial.degraded),
    attempts,
    meanAttempts: attempts.length === 0 ? { mean: 0, sd: 0 } : meanSd(attempts),
  };
}

/** Convergence under A vs B for one task (or `all`): the test of the difference and the trials it would need. */
export interface Comparison {
  readonly task: string;
  readonly redline: Proportion;
  readonly selfjudge: Proportion;
  /** Fisher's exact test, two-sided: the chance of a split at least this uneven if both conditions converged alike. */
  readonly fisherP: number;
  /** Trials per condition that would detect the observed difference (α 0.05, power 0.8); null when there is none. */
  readonly trialsNeeded: number | null;
}

/** Compares the two conditions' convergence. */
export function compare(task: string, redline: Proportion, selfjudge: Proportion): Comparison {
  const rate = (p: Proportion): number => p.rate ?? 0;
  return {
    task,
    redline,
    selfjudge,
    fisherP: fisherExact(redline.count, redline.n, selfjudge.count, selfjudge.n),
    trialsNeeded: trialsPerCondition(rate(redline), rate(selfjudge)),
  };
}

/** What N trials per condition can show at best, and the trials a given difference needs. */
export interface PowerNote {
  readonly trialsPerCondition: number;
  /** The Wilson interval of N of N and of 0 of N: the narrowest any cell can be. */
  readonly allOf: Proportion;
  readonly noneOf: Proportion;
  /** Fisher's p of the most extreme split possible, N of N against 0 of N. */
  readonly extremeP: number;
  /** Trials per condition to tell rates 0.5 ± d/2 apart (the hardest case), for d of 0.5, 0.3, 0.2 and 0.1. */
  readonly needed: readonly { readonly difference: number; readonly trials: number }[];
}

/** The power note for `n` trials per condition. */
export function powerNote(n: number): PowerNote {
  return {
    trialsPerCondition: n,
    allOf: wilson(n, n),
    noneOf: wilson(0, n),
    extremeP: fisherExact(n, n, 0, n),
    needed: [0.5, 0.3, 0.2, 0.1].map((difference) => ({
      difference,
      trials: trialsPerCondition(0.5 + difference / 2, 0.5 - difference / 2) as number,
    })),
  };
}

/** Fix-loop success by attempt for one task class (the repair boundary). */
export interface ClassSuccess {
  readonly taskClass: string;
  readonly tasks: readonly string[];
  readonly trials: number;
  /** Entry k − 1: the trials whose tests passed by attempt k. */
  readonly byAttempt: readonly Proportion[];
}

/** Success by attempt per task class, classes in order of first appearance. */
export function successByClass(trials: readonly TrialResult[], maxAttempts: number): ClassSuccess[] {
  const classes = [...new Set(trials.map((trial) => trial.taskClass ?? 'unclassed'))];
  return classes.map((taskClass) => {
    const own = trials.filter((trial) => (trial.taskClass ?? 'unclassed') === taskClass);
    return {
      taskClass,
      tasks: [...new Set(own.map((trial) => trial.task))],
      trials: own.length,
      byAttempt: Array.from({ length: maxAttempts }, (_, index) =>
        wilson(own.filter((trial) => trial.firstPass !== null && trial.firstPass <= index + 1).length, own.length),
      ),
    };
  });
}
