import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildChecks } from '../../roles/build-checks.js';
import type { Ledger } from '../../ledger/ledger.js';
import { MemoryLedger } from '../../ledger/memory/memory-ledger.js';
import { runMission } from '../../loop/run-mission.js';
import { routingJudge } from '../../judge/routing-judge.js';
import type { Proposer } from '../../proposers/proposer.js';
import { StudyOptionError } from '../study-option-error.js';
import type { StudyProgress } from '../options.js';
import type { Ask } from '../../ai-sdk/model-ask.js';
import { JUDGE_PROMPTS, selfJudge, type JudgePromptName } from './self-judge.js';
import {
  analyseTrial,
  compare,
  powerNote,
  successByClass,
  summarise,
  type CellSummary,
  type ClassSuccess,
  type Comparison,
  type PowerNote,
  type TrialResult,
} from './summarize.js';
import { studyTaskType, taskId, trialMission, writeTaskWorkspace, type Condition, type StudyTask } from './task-mission.js';
import { PUBLISHED_TASKS } from './tasks.js';
import { TruthOracle, type Truth } from './truth.js';

export interface SelfJudgeStudyOptions {
  /** @default the published three tasks */
  readonly tasks?: readonly StudyTask[];
  /** Which task set the tasks are, for the report: `published`, `boundary`, or a file's name. @default 'published' */
  readonly taskSet?: string;
  /** @default ['redline', 'selfjudge'] */
  readonly conditions?: readonly Condition[];
  /** Trials per task and condition. @default 3 */
  readonly trials?: number;
  /** The attempt cap of every trial. @default 8 */
  readonly maxAttempts?: number;
  /** The proposer of every trial; a mission task without one uses the mission's own. */
  readonly proposer?: Proposer;
  /** Condition B's question to the model; required when B runs. */
  readonly ask?: Ask;
  /** A built-in prompt name or a template with `{task}` and `{code}`. @default 'yes-no' */
  readonly judgePrompt?: JudgePromptName | { readonly name: string; readonly template: string };
  /** Where every trial's run is recorded. @default new MemoryLedger() */
  readonly ledger?: Ledger;
  /** Where task workspaces and truth copies live while the study runs. @default os.tmpdir() */
  readonly scratchDir?: string;
  /** Names what ran the trials, for the report (e.g. `model:qwen3:8b`). */
  readonly proposerName?: string;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: StudyProgress) => void;
  /** Injectable study id (ids of runs follow from the ledger). */
  readonly _internal?: { readonly generateId?: () => string };
}

/** Everything `redline study redline-vs-selfjudge` reports. */
export interface SelfJudgeStudy {
  readonly studyId: string;
  readonly config: {
    readonly taskSet: string;
    readonly tasks: readonly string[];
    readonly conditions: readonly Condition[];
    readonly trials: number;
    readonly maxAttempts: number;
    readonly judgePrompt: string;
    readonly proposer: string;
  };
  /** The task type each condition's runs are recorded under (`replay --task-type`, `report stop-quality --task-type`). */
  readonly taskTypes: Readonly<Partial<Record<Condition, string>>>;
  readonly trials: readonly TrialResult[];
  /** Per task and condition, then per condition over all tasks (`task: 'all'`). */
  readonly cells: readonly CellSummary[];
  /** Convergence A vs B, per task and over all tasks; empty unless both conditions ran. */
  readonly comparisons: readonly Comparison[];
  readonly power: PowerNote;
  /** Fix-loop success by attempt per task class, when the tasks have classes. */
  readonly byClass?: readonly ClassSuccess[];
}

const positiveInteger = (option: string, value: number): number => {
  if (!Number.isInteger(value) || value < 1) throw new StudyOptionError({ option, expected: 'a positive integer', got: String(value) });
  return value;
};

/** Per-attempt truth and decisions of a sealed trial, read back from its records. */
async function trialFacts(
  ledger: Ledger,
  runId: string,
  oracle: TruthOracle,
  signal: AbortSignal,
): Promise<{ truth: Truth[]; decisions: string[] }> {
  const truth: Truth[] = [];
  const decisions: string[] = [];
  for (const record of await ledger.records(runId)) {
    if (record.type === 'attempt' && record.data.attempt >= 1 && record.data.candidate !== undefined)
      truth[record.data.attempt - 1] = await oracle.verdict(record.data.candidate, record.data.attempt, signal, record.data.findings);
    if (record.type === 'decision' && record.data.attempt >= 1)
      decisions[record.data.attempt - 1] = record.data.decision?.transition ?? 'rejected';
  }
  return { truth, decisions };
}

/**
 * Red line vs self-judge (docs/experiments.md): every task runs `trials` times under each condition through redline's own
 * loop, each trial a sealed run in `ledger`. A (`redline`) stops when the demand check passes and the next
 * prompt carries its failing finding; B (`selfjudge`) asks the model after every attempt whether its code
 * satisfies the task and stops on YES, with the checks as shadows that record the truth at the seal and never
 * stop the run. After each run the study checks every recorded candidate with the same tests (outside the loop),
 * which gives B's per-attempt truth: false negatives and degradations.
 * @throws {StudyOptionError} for a bad option, before any run.
 */
export async function runSelfJudgeStudy(options: SelfJudgeStudyOptions = {}): Promise<SelfJudgeStudy> {
  const tasks = options.tasks ?? PUBLISHED_TASKS.map((task) => ({ kind: 'code' as const, task }));
  const conditions = options.conditions ?? ['redline', 'selfjudge'];
  const trials = positiveInteger('trials', options.trials ?? 3);
  const maxAttempts = positiveInteger('maxAttempts', options.maxAttempts ?? 8);
  const judgePrompt = options.judgePrompt ?? 'yes-no';
  const prompt = typeof judgePrompt === 'string' ? { name: judgePrompt, template: JUDGE_PROMPTS[judgePrompt] } : judgePrompt;
  if (tasks.length === 0) throw new StudyOptionError({ option: 'tasks', expected: 'at least one task', got: 'none' });
  if (conditions.includes('selfjudge') && options.ask === undefined)
    throw new StudyOptionError({ option: 'ask', expected: "a model to ask (condition B's self-judge)", got: 'none' });
  if (options.proposer === undefined && tasks.some((task) => task.kind === 'code'))
    throw new StudyOptionError({ option: 'proposer', expected: 'a proposer for the code tasks', got: 'none' });
  if (!prompt.template.includes('{code}'))
    throw new StudyOptionError({ option: 'judgePrompt', expected: 'a prompt template holding {code}', got: JSON.stringify(prompt.name) });

  const studyId = (options._internal?.generateId ?? (() => randomUUID().slice(0, 8)))();
  const ledger = options.ledger ?? new MemoryLedger();
  const signal = options.signal ?? new AbortController().signal;
  const root = await mkdtemp(path.join(options.scratchDir ?? tmpdir(), 'redline-study-'));
  const total = tasks.length * conditions.length * trials;
  const results: TrialResult[] = [];
  try {
    for (const task of tasks) {
      const workspace = task.kind === 'code' ? await writeTaskWorkspace(task.task, path.join(root, 'tasks')) : undefined;
      const taskClass = task.kind === 'code' ? task.task.taskClass : undefined;
      for (const condition of conditions) {
        for (let trial = 1; trial <= trials; trial += 1) {
          const mission = trialMission({ task, condition, studyId, trial, maxAttempts, ...(workspace === undefined ? {} : { workspace }) });
          // The truth is the condition-A mission's required checks, whichever condition ran.
          const truthMission =
            condition === 'redline'
              ? mission
              : trialMission({
                  task,
                  condition: 'redline',
                  studyId,
                  trial,
                  maxAttempts,
                  ...(workspace === undefined ? {} : { workspace }),
                });
          const oracle = new TruthOracle({
            checks: await buildChecks(truthMission),
            mission: truthMission,
            scratch: path.join(root, 'truth'),
            ranInLoop: truthMission === mission,
          });
          const result = await runMission({
            mission,
            ledger,
            guards: [],
            judge: condition === 'redline' ? routingJudge() : selfJudge({ ask: options.ask as Ask, template: prompt.template }),
            scratchDir: root,
            signal,
            ...(options.proposer === undefined ? {} : { proposer: options.proposer }),
          });
          const { truth, decisions } = await trialFacts(ledger, result.runId, oracle, signal);
          results.push(
            analyseTrial(
              {
                task: taskId(task),
                ...(taskClass === undefined ? {} : { taskClass }),
                condition,
                trial,
                runId: result.runId,
                missionId: result.mission,
                outcome: result.outcome,
                stopReason: result.stopReason,
                attempts: result.attempts,
                truth,
                decisions,
              },
              await oracle.verdict(result.candidate, result.attempts, signal),
            ),
          );
          options.onProgress?.({ done: results.length, total });
        }
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }

  const ids = tasks.map(taskId);
  const cells = [
    ...ids.flatMap((id) =>
      conditions.map((condition) =>
        summarise(
          id,
          condition,
          results.filter((trial) => trial.task === id && trial.condition === condition),
        ),
      ),
    ),
    ...conditions.map((condition) =>
      summarise(
        'all',
        condition,
        results.filter((trial) => trial.condition === condition),
      ),
    ),
  ];
  const cell = (task: string, condition: Condition): CellSummary =>
    cells.find((item) => item.task === task && item.condition === condition) as CellSummary;
  const comparisons =
    conditions.includes('redline') && conditions.includes('selfjudge')
      ? [...ids, 'all'].map((id) => compare(id, cell(id, 'redline').converged, cell(id, 'selfjudge').converged))
      : [];
  const classed = tasks.some((task) => task.kind === 'code' && task.task.taskClass !== undefined);
  return {
    studyId,
    config: {
      taskSet: options.taskSet ?? 'published',
      tasks: ids,
      conditions,
      trials,
      maxAttempts,
      judgePrompt: prompt.name,
      proposer: options.proposerName ?? options.proposer?.name ?? 'the missions own proposers',
    },
    taskTypes: Object.fromEntries(conditions.map((condition) => [condition, studyTaskType(studyId, condition)])),
    trials: results,
    cells,
    comparisons,
    power: powerNote(trials),
    ...(classed ? { byClass: successByClass(results, maxAttempts) } : {}),
  };
}
