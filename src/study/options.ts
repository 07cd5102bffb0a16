import { sfc32, type RandomFactory } from './prng.js';
import { STRATEGY_NAMES, type StrategyName } from './strategies.js';
import { StudyOptionError } from './study-option-error.js';
import { resolvePolicies, type StudyPolicy, type StudyPolicyInput } from './study-policies.js';

/** How far a study has got: `done` of `total` (seed, σ) cells simulated. */
export interface StudyProgress {
  readonly done: number;
  readonly total: number;
}

export interface StopRulesStudyOptions {
  /** Judge noise levels σ of the sweep. @default [0.02, 0.05, 0.1, 0.15, 0.2] */
  readonly sigmas?: readonly number[] | undefined;
  /** Seeds to repeat the study over; results are mean ± sd over them. @default 10 */
  readonly seeds?: number | undefined;
  /** The first seed; the others follow it. @default 1 */
  readonly seed?: number | undefined;
  /** Tasks of each of the three types; half of all tasks warm the learned priors, half are tested. @default 200 */
  readonly tasksPerType?: number | undefined;
  /** Quality bar. @default 0.8 */
  readonly bar?: number | undefined;
  /** Attempt cap of every rule (the fixed budgets use 2 and 6). @default 8 */
  readonly cap?: number | undefined;
  /** Warm-up sizes of adaptive's cold-start curve. @default [0, 3, 6, 12, 30, 60, 150, 300], less those above the training half */
  readonly warmup?: readonly number[] | undefined;
  /** Confidences of the noise-aware calibration sweep; an empty list skips the sweep. @default [0.5, 0.6, 0.7, 0.75, 0.8, 0.825, 0.85, 0.875, 0.9, 0.925, 0.95, 0.975, 0.99, 0.995, 0.999] */
  readonly confidences?: readonly number[] | undefined;
  /**
   * User-defined guard stacks (mission-file syntax), each run as an extra strategy after the built-in ones,
   * with the attempt budget first. An `adaptive` guard in them reads the priors warmed on the training half.
   * @default []
   */
  readonly policies?: readonly StudyPolicyInput[] | undefined;
  /** Called after each simulated cell. */
  readonly onProgress?: (progress: StudyProgress) => void;
  /** Uniform generator factory for every random draw. @default sfc32 */
  readonly random?: RandomFactory;
}

/** The resolved parameters of a study, as reported in its `config`. */
export interface StudyConfig {
  readonly bar: number;
  readonly cap: number;
  readonly tasksPerType: number;
  readonly trainTasks: number;
  readonly testTasks: number;
  readonly seeds: number;
  readonly seed: number;
  readonly sigmas: readonly number[];
  readonly strategies: readonly StrategyName[];
  /** The user-defined strategies, reported after the built-in ones. */
  readonly policies: readonly StudyPolicy[];
  /** Confidence of the `noise-aware` strategy (σ configured to the true σ). */
  readonly noiseAwareConfidence: number;
  readonly coldStartSigma: number;
  readonly warmup: readonly number[];
  readonly confidences: readonly number[];
}

export const DEFAULT_SIGMAS = Object.freeze([0.02, 0.05, 0.1, 0.15, 0.2]);
export const DEFAULT_WARMUP = Object.freeze([0, 3, 6, 12, 30, 60, 150, 300]);
export const DEFAULT_CONFIDENCES = Object.freeze([
  0.5, 0.6, 0.7, 0.75, 0.8, 0.825, 0.85, 0.875, 0.9, 0.925, 0.95, 0.975, 0.99, 0.995, 0.999,
]);
const MAX_SEED = 2 ** 31 - 1;
/** Noise-aware reads at most 64 attempts; a larger cap would cut its history. */
const MAX_CAP = 64;

const describe = (value: unknown): string =>
  Array.isArray(value) ? `[${value.map(describe).join(', ')}]` : typeof value === 'string' ? JSON.stringify(value) : String(value);

function integer(option: string, value: number, min: number, max: number): number {
  if (Number.isInteger(value) && value >= min && value <= max) return value;
  throw new StudyOptionError({ option, expected: `an integer in [${min}, ${max}]`, got: describe(value) });
}

function unit(option: string, value: number, { closed }: { closed: boolean }): number {
  if (typeof value === 'number' && value > 0 && (closed ? value <= 1 : value < 1)) return value;
  throw new StudyOptionError({ option, expected: `a number in (0, 1${closed ? ']' : ')'}`, got: describe(value) });
}

/** A list (non-empty unless `empty`), each item checked by `check`, sorted ascending without repeats. */
function list(
  option: string,
  values: readonly number[],
  expected: string,
  check: (value: number) => boolean,
  { empty = false } = {},
): number[] {
  if (!Array.isArray(values) || (values.length === 0 && !empty) || !values.every((value) => typeof value === 'number' && check(value))) {
    throw new StudyOptionError({ option, expected: `${empty ? 'a list' : 'a non-empty list'} of ${expected}`, got: describe(values) });
  }
  return [...new Set(values)].sort((a, b) => a - b);
}

/** Checks the options and fills in defaults; throws {@link StudyOptionError} naming the first bad option. */
export function resolveOptions(options: StopRulesStudyOptions): StudyConfig & { readonly random: RandomFactory } {
  const cap = integer('cap', options.cap ?? 8, 6, MAX_CAP);
  const tasksPerType = integer('tasksPerType', options.tasksPerType ?? 200, 1, 100_000);
  const trainTasks = Math.floor((3 * tasksPerType) / 2);
  const warmup =
    options.warmup === undefined
      ? DEFAULT_WARMUP.filter((size) => size <= trainTasks)
      : list(
          'warmup',
          options.warmup,
          `integers in [0, ${trainTasks}] (the training half)`,
          (size) => Number.isInteger(size) && size >= 0 && size <= trainTasks,
        );
  return {
    bar: unit('bar', options.bar ?? 0.8, { closed: true }),
    cap,
    tasksPerType,
    trainTasks,
    testTasks: 3 * tasksPerType - trainTasks,
    seeds: integer('seeds', options.seeds ?? 10, 1, 10_000),
    seed: integer('seed', options.seed ?? 1, 0, MAX_SEED),
    sigmas: list('sigmas', options.sigmas ?? DEFAULT_SIGMAS, 'numbers in (0, 1]', (sigma) => sigma > 0 && sigma <= 1),
    strategies: STRATEGY_NAMES,
    policies: resolvePolicies(options.policies, STRATEGY_NAMES),
    noiseAwareConfidence: 0.9,
    coldStartSigma: 0.1,
    warmup,
    confidences: list(
      'confidences',
      options.confidences ?? DEFAULT_CONFIDENCES,
      'numbers in (0, 1)',
      (confidence) => confidence > 0 && confidence < 1,
      { empty: true },
    ),
    random: options.random ?? sfc32,
  };
}
