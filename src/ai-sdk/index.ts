export { openAICompatibleModel, type OpenAICompatibleModelOptions } from './openai-compatible.js';
export type { ModelSource } from './model-source.js';
export { modelProposer, type ModelProposerOptions } from './model-proposer.js';
export { modelScore, type ModelScoreOptions } from './model-score.js';
export { modelJudge, type ModelJudgeOptions } from './model-judge.js';
export { redlineStopWhen, type RedlineStopCondition, type RedlineStopWhenOptions, type StopWhenVerdict } from './stop-when.js';
export type { StepSlice } from './step-candidate.js';
export type { StepCheckFunction, StepCheckInput, StepCheckResult, StepFunctionCheck } from './step-checks.js';
