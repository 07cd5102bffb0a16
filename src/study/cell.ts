import type { AttemptSummary } from '../guards/guard.js';
import { observe, type Task, type TaskType } from './task-model.js';

/** A test task at one noise level: what the judges reported, and the attempt summaries the guards read. */
export interface CellTask {
  readonly type: TaskType;
  /** True quality at attempt t = index + 1. */
  readonly quality: Float64Array;
  /** Judge A's scores per attempt. */
  readonly observed: readonly number[];
  /** Judge B's scores per attempt (independent noise), for the two-judge strategy. */
  readonly secondObserved: readonly number[];
  /** Summaries scored by judge A, one object per attempt, shared by every strategy (guards may memoize on them). */
  readonly summaries: readonly AttemptSummary[];
}

/** One seed at one noise level σ: the training half's observed scores (and true quality), and the test half. */
export interface Cell {
  readonly sigma: number;
  readonly train: readonly { readonly type: TaskType; readonly quality: Float64Array; readonly observed: readonly number[] }[];
  readonly test: readonly CellTask[];
}

// Placeholders for the fields no score rule reads: every attempt is a distinct candidate making progress.
const HASHES = Array.from({ length: 65 }, (_, attempt) => `candidate-${attempt}`);
const SIGNATURES = Array.from({ length: 65 }, (_, attempt) => `state-${attempt}`);

/** The summary of simulated attempt `attempt` (1-based) scored `score`. */
export function summary(attempt: number, score: number): AttemptSummary {
  return {
    attempt,
    candidateHash: HASHES[attempt] as string,
    signature: SIGNATURES[attempt] as string,
    rejection: '',
    score,
    failing: 0,
    failed: false,
    infraError: false,
    progress: true,
  };
}

/** Judge scores of `task` at noise `sigma` from its draws `noise`. */
function scoresOf(task: Task, sigma: number, noise: Float64Array): number[] {
  const scores = new Array<number>(task.quality.length);
  for (let index = 0; index < scores.length; index += 1)
    scores[index] = observe(task.quality[index] as number, noise[index] as number, sigma);
  return scores;
}

/** Builds the cell of `tasks` (one seed's, shuffled) at noise `sigma`: the first `trainTasks` train, the rest are tested. */
export function buildCell({ tasks, trainTasks, sigma }: { tasks: readonly Task[]; trainTasks: number; sigma: number }): Cell {
  const train: Cell['train'][number][] = [];
  const test: CellTask[] = [];
  for (let index = 0; index < tasks.length; index += 1) {
    const task = tasks[index] as Task;
    const observed = scoresOf(task, sigma, task.noise);
    if (index < trainTasks) {
      train.push({ type: task.type, quality: task.quality, observed });
      continue;
    }
    const summaries = new Array<AttemptSummary>(observed.length);
    for (let at = 0; at < observed.length; at += 1) summaries[at] = summary(at + 1, observed[at] as number);
    test.push({ type: task.type, quality: task.quality, observed, secondObserved: scoresOf(task, sigma, task.secondNoise), summaries });
  }
  return { sigma, train, test };
}

/** Training tasks `from` (inclusive) to `to` (exclusive) of `cell` as tasks a strategy can run on (a learning rule rehearses on them). */
export function trainingTasks(cell: Cell, from: number, to: number): CellTask[] {
  return cell.train.slice(from, to).map(({ type, quality, observed }) => ({
    type,
    quality,
    observed,
    secondObserved: observed,
    summaries: observed.map((score, index) => summary(index + 1, score)),
  }));
}
