// The handoff-queue study (docs/experiments.md): the simple per-minute model and the review queue's full protocol.
export { runHandoffStudy, type HandoffRow, type HandoffStudy } from './run-handoff-study.js';
export type { HandoffStudyOptions } from './options.js';
export type { HandoffModelOptions } from './model-options.js';
export { runHandoffSeeds, type BoundReach, type HandoffSeedsOptions, type HandoffSeedsRow, type HandoffSeedsStudy } from './seeds.js';
export {
  solveReviewRate,
  type RateOverflow,
  type ReviewRateSolution,
  type ReviewRateStudy,
  type SolveReviewRateOptions,
} from './solve-review-rate.js';
export { renderHandoffSeedsMarkdown, renderReviewRateMarkdown } from './seeds-markdown.js';
export { loadHandoffConfig } from './config-file.js';
export { renderHandoffMarkdown } from './report-markdown.js';
export { handoffFigureSpec, renderHandoffFigure, writeHandoffFigure, HANDOFF_FIGURE_FILE } from './figure.js';
export {
  simulateHandoff,
  HANDOFF_VARIANTS,
  type Drop,
  type HandoffStreams,
  type HandoffTrace,
  type HandoffVariant,
  type MinuteRecord,
  type Review,
  type SimulateHandoffOptions,
} from './simulate.js';
export {
  APPROVE_PROBABILITY,
  BURST_FACTOR,
  DRAFT_QUALITY_WEIGHTS,
  HANDOFF_CONFIGS,
  HANDOFF_MODEL,
  MAX_PRIORITY,
  QUALITY_WEIGHTS,
  type HandoffConfig,
  type HandoffModel,
  type Quality,
  type QualityWeights,
} from './model.js';
export type { QueueItem } from './queues.js';
