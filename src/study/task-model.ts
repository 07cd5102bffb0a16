import { normals, sfc32, streamSeed, type RandomFactory, type Uniform } from './prng.js';

/** A task type's ranges: start quality `s0` and improvement rate `r`, each drawn uniformly. */
export interface TaskTypeRanges {
  readonly s0: readonly [number, number];
  readonly r: readonly [number, number];
}

/** The task types of the stop-rules study (docs/stop-rules.md, 'How the study works'), in equal numbers. */
export const TASK_TYPES: Readonly<Record<'easy' | 'medium' | 'hard', TaskTypeRanges>> = {
  easy: { s0: [0.6, 0.75], r: [0.8, 1.2] },
  medium: { s0: [0.4, 0.55], r: [0.4, 0.7] },
  hard: { s0: [0.25, 0.4], r: [0.2, 0.4] },
};

export type TaskType = keyof typeof TASK_TYPES;

/** One simulated task: its hidden quality curve and the standard-normal judge noise of each attempt. */
export interface Task {
  readonly type: TaskType;
  readonly s0: number;
  readonly r: number;
  /** True quality q(t) at attempt t = index + 1. */
  readonly quality: Float64Array;
  /** N(0, 1) draws of judge A per attempt: the judge every strategy reads. */
  readonly noise: Float64Array;
  /** N(0, 1) draws of an independent judge B per attempt, for the two-judge strategy. */
  readonly secondNoise: Float64Array;
}

/** Independent random streams of one seed: the task draws never depend on how much noise is drawn. */
const STREAM = { tasks: 0, judgeA: 1, judgeB: 2 } as const;

/**
 * The hidden true quality at attempt `t` (1-based): `q(t) = 1 − (1 − s0)·exp(−r·(t − 1))`.
 *
 * @example
 * trueQuality(0.6, 1, 1) // 0.6: the first attempt is the start quality
 */
export function trueQuality(s0: number, r: number, t: number): number {
  return 1 - (1 - s0) * Math.exp(-r * (t - 1));
}

/** What the judge reports for true quality `q` and noise draw `z` at noise level `sigma`: `clip(q + σ·z, 0, 1)`. */
export function observe(q: number, z: number, sigma: number): number {
  const score = q + sigma * z;
  return score < 0 ? 0 : score > 1 ? 1 : score;
}

const between = (uniform: Uniform, [low, high]: readonly [number, number]): number => low + (high - low) * uniform();

export interface GenerateTasksOptions {
  /** Tasks of each type. */
  readonly tasksPerType: number;
  /** Attempts simulated per task. */
  readonly cap: number;
  readonly seed: number;
  /** @default sfc32 */
  readonly random?: RandomFactory;
}

/**
 * The tasks of one seed, shuffled: `tasksPerType` of each type with `s0` and `r` uniform in the type's
 * ranges, and one standard-normal draw per attempt for each of two judges. The noise is drawn as
 * N(0, 1) and scaled by σ when observed ({@link observe}), so every σ of a sweep sees the same tasks and
 * the same draws (common random numbers): differences between σ are the noise level's alone.
 *
 * @example
 * const tasks = generateTasks({ tasksPerType: 200, cap: 8, seed: 1 }); // 600 tasks
 */
export function generateTasks({ tasksPerType, cap, seed, random = sfc32 }: GenerateTasksOptions): Task[] {
  const uniform = random(streamSeed(seed, STREAM.tasks));
  const drawn: { type: TaskType; s0: number; r: number }[] = [];
  for (const [type, ranges] of Object.entries(TASK_TYPES) as [TaskType, TaskTypeRanges][]) {
    for (let i = 0; i < tasksPerType; i += 1) drawn.push({ type, s0: between(uniform, ranges.s0), r: between(uniform, ranges.r) });
  }
  // Fisher–Yates.
  for (let i = drawn.length - 1; i > 0; i -= 1) {
    const j = Math.floor(uniform() * (i + 1));
    [drawn[i], drawn[j]] = [drawn[j] as (typeof drawn)[number], drawn[i] as (typeof drawn)[number]];
  }
  const judgeA = normals(random(streamSeed(seed, STREAM.judgeA)));
  const judgeB = normals(random(streamSeed(seed, STREAM.judgeB)));
  return drawn.map(({ type, s0, r }) => {
    const quality = new Float64Array(cap);
    const noise = new Float64Array(cap);
    const secondNoise = new Float64Array(cap);
    for (let t = 1; t <= cap; t += 1) {
      quality[t - 1] = trueQuality(s0, r, t);
      noise[t - 1] = judgeA();
      secondNoise[t - 1] = judgeB();
    }
    return { type, s0, r, quality, noise, secondNoise };
  });
}
