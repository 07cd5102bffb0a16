// `redline-loop/study`: simulators that measure stop policies (docs/experiments.md).
export { runStopRulesStudy, type CdvColdStartResult, type ColdStartResult, type StopRulesStudy, type StrategyResult } from './run-study.js';
export type { StudyPolicy, StudyPolicyInput } from './study-policies.js';
export type { CdvWarmup } from './adaptive-cdv-strategy.js';
export {
  DEFAULT_CONFIDENCES,
  DEFAULT_SIGMAS,
  DEFAULT_WARMUP,
  type StopRulesStudyOptions,
  type StudyConfig,
  type StudyProgress,
} from './options.js';
export { STRATEGY_NAMES, type StrategyName } from './strategies.js';
export type { CalibrationShortfall, NearMiss, NoiseAwareResult, NoiseAwareVerdict, NoiseMode } from './verdicts.js';
export type { MeanSd } from './stats.js';
export { renderMarkdown, type FigureLink } from './report-markdown.js';
export { renderFigures, writeFigures, type Figure } from './figures.js';
export {
  generateTasks,
  observe,
  trueQuality,
  TASK_TYPES,
  type GenerateTasksOptions,
  type Task,
  type TaskType,
  type TaskTypeRanges,
} from './task-model.js';
export { normals, sfc32, type RandomFactory, type Uniform } from './prng.js';
export { StudyOptionError } from './study-option-error.js';
export { assertOutDir } from './out-dir.js';
export * from './handoff/index.js';
export * from './selfjudge/index.js';
export * from './judge-noise/index.js';
