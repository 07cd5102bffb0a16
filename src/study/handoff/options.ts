import { sfc32, type RandomFactory } from '../prng.js';
import { StudyOptionError } from '../study-option-error.js';
import { DRAFT_QUALITY_WEIGHTS, HANDOFF_CONFIGS, type HandoffConfig, type HandoffModel, type QualityWeights } from './model.js';
import { describeValue as describe, qualityWeights, resolveHandoffModel, type HandoffModelOptions } from './model-options.js';

export interface HandoffStudyOptions extends HandoffModelOptions {
  /** Seed of every random draw. @default 1 */
  readonly seed?: number;
  /** Simulated minutes. @default 120 */
  readonly minutes?: number;
  /** Configurations to simulate, each in both variants. @default HANDOFF_CONFIGS (A–D) */
  readonly configs?: readonly HandoffConfig[];
  /** Review queue capacity. @default 50 */
  readonly capacity?: number;
  /** Quality weights of degraded-mode drafts. @default DRAFT_QUALITY_WEIGHTS (40 / 40 / 20) */
  readonly draftWeights?: QualityWeights;
  /** Uniform generator factory for every random draw. @default sfc32 */
  readonly random?: RandomFactory;
}

export interface ResolvedHandoffOptions {
  readonly seed: number;
  readonly minutes: number;
  readonly configs: readonly HandoffConfig[];
  readonly capacity: number;
  readonly draftWeights: QualityWeights;
  readonly random: RandomFactory;
  readonly model: HandoffModel;
}

function integer(option: string, value: unknown, min: number, max: number): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  throw new StudyOptionError({ option, expected: `an integer in [${min}, ${max}]`, got: describe(value) });
}

function config(value: HandoffConfig, index: number): HandoffConfig {
  const option = `configs[${index}]`;
  if (typeof value !== 'object' || value === null || typeof value.name !== 'string' || value.name === '') {
    throw new StudyOptionError({ option: `${option}.name`, expected: 'a non-empty string', got: describe(value?.name) });
  }
  const { burstProbability } = value;
  if (typeof burstProbability !== 'number' || !(burstProbability >= 0 && burstProbability <= 1)) {
    throw new StudyOptionError({ option: `${option}.burstProbability`, expected: 'a number in [0, 1]', got: describe(burstProbability) });
  }
  return Object.freeze({
    name: value.name,
    productionRate: integer(`${option}.productionRate`, value.productionRate, 0, 10_000),
    reviewRate: integer(`${option}.reviewRate`, value.reviewRate, 0, 10_000),
    burstProbability,
  });
}

/** Checks the options and fills in defaults; throws {@link StudyOptionError} naming the first bad option. */
export function resolveHandoffOptions(options: HandoffStudyOptions): ResolvedHandoffOptions {
  const configs = options.configs ?? HANDOFF_CONFIGS;
  if (!Array.isArray(configs) || configs.length === 0)
    throw new StudyOptionError({ option: 'configs', expected: 'a non-empty list of configurations', got: describe(configs) });
  const resolved = configs.map(config);
  const names = resolved.map(({ name }) => name);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined)
    throw new StudyOptionError({ option: 'configs', expected: 'configurations with distinct names', got: `${describe(repeated)} twice` });
  return {
    seed: integer('seed', options.seed ?? 1, 0, 2 ** 31 - 1),
    minutes: integer('minutes', options.minutes ?? 120, 1, 100_000),
    configs: Object.freeze(resolved),
    capacity: integer('capacity', options.capacity ?? 50, 1, 100_000),
    draftWeights: qualityWeights('draftWeights', options.draftWeights ?? DRAFT_QUALITY_WEIGHTS),
    random: options.random ?? sfc32,
    model: resolveHandoffModel(options),
  };
}
