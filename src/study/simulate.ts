import type { CheckContext } from '../core/check.js';
import { minOfTwo } from '../checks/min-of-two.js';
import type { ScoreFunction, ScoreResult } from '../checks/score-check.js';
import { evaluatePolicy, policyLookback, type AttemptSummary, type GuardInput, type RunCounters } from '../guards/guard.js';
import { EMPTY_CANDIDATE } from '../core/candidate.js';
import { summary, type CellTask } from './cell.js';
import type { Strategy } from './strategies.js';

/** What one strategy did on one cell's test tasks; reaches are percentages of the test tasks. */
export interface Tally {
  readonly meanSteps: number;
  /** % of tasks where the loop saw a score ≥ bar at or before its stop. */
  readonly observedReach: number;
  /** % of tasks whose true quality at the stop attempt is ≥ bar. */
  readonly trueReach: number;
  /** Mean true quality at the stop attempt. */
  readonly finalScore: number;
  /** The attempt each test task stopped on, in task order. */
  readonly stops: readonly number[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Run counters at attempt `attempts`: only the attempt count moves in a simulated run. */
const COUNTERS: RunCounters[] = Array.from({ length: 65 }, (_, attempts) =>
  Object.freeze({ attempts, inputTokens: 0, outputTokens: 0, costUsd: 0, elapsedMs: 0, sinceProgress: 0, failedRounds: 0 }),
);

/** Evaluates a strategy's policy after each attempt as the runtime does, and sums up where tasks stopped. */
class Runner {
  readonly #policy: Strategy['policy'];
  readonly #lookback: number;
  readonly #bar: number;
  readonly #finished: Strategy['finished'];
  // One input object for the whole simulation: guards read it only while evaluating.
  readonly #input: Mutable<GuardInput>;
  #tasks = 0;
  #steps = 0;
  #observedReach = 0;
  #trueReach = 0;
  #finalScore = 0;
  readonly #stops: number[];

  constructor({ policy, maxAttempts, finished }: Strategy, bar: number, tasks: number) {
    this.#policy = policy;
    this.#lookback = policyLookback(policy);
    this.#bar = bar;
    this.#finished = finished;
    this.#stops = new Array<number>(tasks).fill(0);
    this.#input = { recent: [], counters: COUNTERS[0] as RunCounters, budgets: { maxAttempts }, progressWindow: 3, taskType: '' };
  }

  /**
   * Adds `attempt` to the task's history `recent` (kept to the policy's lookback; attempt 1 starts it
   * afresh); true when the policy stops.
   */
  step(task: CellTask, recent: AttemptSummary[], attempt: AttemptSummary): boolean {
    if (attempt.attempt === 1 && recent.length > 0) {
      // Overwritten rather than emptied: an emptied array gives up its storage, and each task would allocate anew.
      recent[0] = attempt;
      recent.length = 1;
    } else {
      recent.push(attempt);
      if (recent.length > this.#lookback) recent.shift();
    }
    const input = this.#input;
    input.recent = recent;
    input.taskType = task.type;
    input.counters = COUNTERS[attempt.attempt] as RunCounters;
    return evaluatePolicy(this.#policy, input) !== undefined;
  }

  /** Records that `task` (number `index` in task order) stopped on attempt `stop`, having seen a score ≥ bar or not. */
  finish(index: number, task: CellTask, stop: number, seen: boolean): void {
    const quality = task.quality[stop - 1] as number;
    this.#stops[index] = stop;
    this.#tasks += 1;
    this.#steps += stop;
    if (seen) this.#observedReach += 1;
    if (quality >= this.#bar) this.#trueReach += 1;
    this.#finalScore += quality;
    this.#finished?.(task, stop);
  }

  tally(): Tally {
    const count = this.#tasks;
    return {
      meanSteps: this.#steps / count,
      observedReach: (100 * this.#observedReach) / count,
      trueReach: (100 * this.#trueReach) / count,
      finalScore: this.#finalScore / count,
      stops: this.#stops,
    };
  }
}

/**
 * Task by task, in order (a learning rule learns from each finished task before the next); within a task,
 * attempt by attempt, every strategy still running evaluates its policy on the same attempt before the
 * next attempt. Each strategy's tally is what it would be alone: its runs are the same and finish in the
 * same order. Rules that share work (noise-aware rules differing only in confidence) then ask about an
 * attempt one after another. Synchronous: every strategy must read one judge (`scores: 'single'`).
 */
export function simulateOneJudge(strategies: readonly Strategy[], tasks: readonly CellTask[], bar: number): Tally[] {
  const count = strategies.length;
  const runners = strategies.map((strategy) => new Runner(strategy, bar, tasks.length));
  const caps = strategies.map((strategy) => strategy.maxAttempts);
  const recents = strategies.map((): AttemptSummary[] => []);
  const running = new Uint8Array(count);
  const seen = new Uint8Array(count);
  for (let index = 0; index < tasks.length; index += 1) {
    const task = tasks[index] as CellTask;
    running.fill(1);
    seen.fill(0);
    // Every strategy stops by its attempt cap at the latest.
    for (let attempt = 1, left = count; left > 0; attempt += 1) {
      const current = task.summaries[attempt - 1] as AttemptSummary;
      const high = (current.score as number) >= bar;
      for (let which = 0; which < count; which += 1) {
        if (running[which] === 0) continue;
        if (high) seen[which] = 1;
        const runner = runners[which] as Runner;
        if (!runner.step(task, recents[which] as AttemptSummary[], current) && attempt < (caps[which] as number)) continue;
        runner.finish(index, task, attempt, seen[which] === 1);
        running[which] = 0;
        left -= 1;
      }
    }
  }
  return runners.map((runner) => runner.tally());
}

const scoreOf = (result: ScoreResult): number => (typeof result === 'number' ? result : result.score);

/**
 * Attempt by attempt over all tasks: each attempt's scores come from the library's `minOfTwo` over two
 * judges reporting the pre-drawn scores, asked only for the tasks still running and awaited together.
 * Tasks finish in the order the strategy sees them, so a strategy learning online must read one judge.
 */
async function simulateTwoJudges(strategy: Strategy, tasks: readonly CellTask[], bar: number): Promise<Tally> {
  if (strategy.finished !== undefined)
    throw new TypeError('Expected a two-judge strategy without online learning, got one with a `finished` hook');
  const runner = new Runner(strategy, bar, tasks.length);
  const signal = new AbortController().signal;
  const judge =
    (scores: readonly number[]): ScoreFunction =>
    ({ attempt }) =>
      scores[attempt - 1] as number;
  let running = tasks.map((task, index) => ({
    index,
    task,
    score: minOfTwo(judge(task.observed), judge(task.secondObserved)),
    recent: [] as AttemptSummary[],
    seen: false,
  }));
  for (let attempt = 1; running.length > 0; attempt += 1) {
    const context: CheckContext = { attempt, candidate: EMPTY_CANDIDATE, goal: 'simulated task', signal };
    const scores = await Promise.all(running.map((run) => run.score(context)));
    running = running.filter((run, index) => {
      const current = summary(attempt, scoreOf(scores[index] as ScoreResult));
      run.seen ||= (current.score as number) >= bar;
      if (!runner.step(run.task, run.recent, current) && attempt < strategy.maxAttempts) return true;
      runner.finish(run.index, run.task, attempt, run.seen);
      return false;
    });
  }
  return runner.tally();
}

/**
 * Runs `strategy` on each task, evaluating its policy after every attempt as the runtime does (history
 * kept to the policy's lookback), and stopping each task at the first verdict.
 */
export async function simulate({ strategy, tasks, bar }: { strategy: Strategy; tasks: readonly CellTask[]; bar: number }): Promise<Tally> {
  return (await simulateAll({ strategies: [strategy], tasks, bar }))[0] as Tally;
}

/**
 * {@link simulate} for several strategies on the same tasks, their tallies in order: the same tallies as
 * one by one, but the strategies that read one judge run side by side, attempt by attempt.
 */
export async function simulateAll({
  strategies,
  tasks,
  bar,
}: {
  strategies: readonly Strategy[];
  tasks: readonly CellTask[];
  bar: number;
}): Promise<Tally[]> {
  const single = strategies.filter((strategy) => strategy.scores === 'single');
  const tallies = single.length > 0 ? simulateOneJudge(single, tasks, bar) : [];
  const result: Tally[] = [];
  let next = 0;
  for (const strategy of strategies)
    result.push(strategy.scores === 'single' ? (tallies[next++] as Tally) : await simulateTwoJudges(strategy, tasks, bar));
  return result;
}
