// Red line vs self-judge and the repair boundary (docs/experiments.md).
export { runSelfJudgeStudy, type SelfJudgeStudy, type SelfJudgeStudyOptions } from './run-selfjudge-study.js';
export { BOUNDARY_TASKS, PUBLISHED_TASKS, TASK_SETS, parseTaskFile, type CodeTask, type TaskSetName } from './tasks.js';
export { CONDITIONS, studyTaskType, type Condition, type StudyTask } from './task-mission.js';
export { JUDGE_PROMPTS, saysYes, selfJudge, type JudgePromptName } from './self-judge.js';
export type { Ask } from '../../ai-sdk/model-ask.js';
export type { CellSummary, ClassSuccess, Comparison, PowerNote, TrialResult } from './summarize.js';
export type { Truth } from './truth.js';
export type { Protocol } from './published-prompts.js';
export type { PromptRecord } from './published-roles.js';
export { renderSelfJudgeMarkdown } from './report-markdown.js';
export { selfJudgeSpec, writeSelfJudgeFigure, SELFJUDGE_FIGURE } from './figure.js';
