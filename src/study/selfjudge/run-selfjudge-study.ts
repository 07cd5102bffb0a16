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
import type { Check } from '../../core/check.js';
import type { Judge } from '../../judge/judge.js';
import { publishedCheck } from './published-check.js';
import { PROTOCOLS, type Protocol } from './published-prompts.js';
import { publishedJudge, publishedProposer, type PromptRecord } from './published-roles.js';
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
import { PUBLISHED_TASKS, type CodeTask } from './tasks.js';
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
  /** The attempt cap of every trial (the published script's steps). @default 8 */
  readonly maxAttempts?: number;
  /**
   * Whose prompts the trials send (docs/experiments.md): `redline`, the model proposer's prompt and `judgePrompt`; `published`,
   * the published script's own prompts, parsing and test, sent through `ask`; `published-en`, the same in English.
   * @default 'redline'
   */
  readonly protocol?: Protocol;
  /** Under a published protocol: the test statement and its expected output go into every proposer prompt. @default false */
  readonly injectTests?: boolean;
  /** The proposer of every trial under `redline`; a mission task without one uses the mission's own. None under a published protocol. */
  readonly proposer?: Proposer;
  /** Condition B's question to the model; required when B runs, and under a published protocol the proposer's model too. */
  readonly ask?: Ask;
  /** Under `redline`: a built-in prompt name or a template with `{task}` and `{code}`. @default 'yes-no' */
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
    /** Present under a published protocol only, so that a `redline` study reads as it always has. */
    readonly protocol?: Exclude<Protocol, 'redline'>;
    readonly injectTests?: boolean;
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

/** Refuses what a published protocol cannot run: a proposer or judge prompt of redline's, no model, a task not of the script's kind. */
function assertPublishable(options: SelfJudgeStudyOptions, tasks: readonly StudyTask[]): void {
  const refuse = (option: string, expected: string, got: string): never => {
    throw new StudyOptionError({ option, expected, got });
  };
  if (options.proposer !== undefined)
    refuse('proposer', "none under a published protocol (it sends the script's prompts to the model itself)", options.proposer.name);
  if (options.judgePrompt !== undefined)
    refuse('judgePrompt', "none under a published protocol (the script's question is part of it)", JSON.stringify(options.judgePrompt));
  if (options.ask === undefined) refuse('ask', 'a model to ask (the published protocol proposes and judges through it)', 'none');
  const other = tasks.find((task) => task.kind !== 'code' || task.task.code !== undefined);
  if (other !== undefined)
    refuse('tasks', 'code tasks written from scratch under a published protocol (no mission file, no starting solution.py)', taskId(other));
}

/**
 * Red line vs self-judge (docs/experiments.md): every task runs `trials` times under each condition through redline's own
 * loop, each trial a sealed run in `ledger`. A (`redline`) stops when the demand check passes and the next
 * prompt carries its failing finding; B (`selfjudge`) asks the model after every attempt whether its code
 * satisfies the task and stops on YES, with the checks as shadows that record the truth at the seal and never
 * stop the run. After each run the study checks every recorded candidate with the same tests (outside the loop),
 * which gives B's per-attempt truth: false negatives and degradations. Under a published protocol the proposer,
 * the self-judge and the test are the published script's, and every trial lists the prompts it sent.
 * @throws {StudyOptionError} for a bad option, before any run.
 */
export async function runSelfJudgeStudy(options: SelfJudgeStudyOptions = {}): Promise<SelfJudgeStudy> {
  const tasks = options.tasks ?? PUBLISHED_TASKS.map((task) => ({ kind: 'code' as const, task }));
  const conditions = options.conditions ?? ['redline', 'selfjudge'];
  const trials = positiveInteger('trials', options.trials ?? 3);
  const maxAttempts = positiveInteger('maxAttempts', options.maxAttempts ?? 8);
  const protocol = options.protocol ?? 'redline';
  const injectTests = options.injectTests ?? false;
  if (!PROTOCOLS.includes(protocol))
    throw new StudyOptionError({ option: 'protocol', expected: 'redline, published or published-en', got: JSON.stringify(protocol) });
  const judgePrompt = options.judgePrompt ?? 'yes-no';
  const prompt = typeof judgePrompt === 'string' ? { name: judgePrompt, template: JUDGE_PROMPTS[judgePrompt] } : judgePrompt;
  if (tasks.length === 0) throw new StudyOptionError({ option: 'tasks', expected: 'at least one task', got: 'none' });
  if (protocol !== 'redline') assertPublishable(options, tasks);
  else if (injectTests) throw new StudyOptionError({ option: 'injectTests', expected: 'false under the redline protocol', got: 'true' });
  if (conditions.includes('selfjudge') && options.ask === undefined)
    throw new StudyOptionError({ option: 'ask', expected: "a model to ask (condition B's self-judge)", got: 'none' });
  if (protocol === 'redline' && options.proposer === undefined && tasks.some((task) => task.kind === 'code'))
    throw new StudyOptionError({ option: 'proposer', expected: 'a proposer for the code tasks', got: 'none' });
  if (protocol === 'redline' && !prompt.template.includes('{code}'))
    throw new StudyOptionError({ option: 'judgePrompt', expected: 'a prompt template holding {code}', got: JSON.stringify(prompt.name) });

  const proposerName = options.proposerName ?? options.proposer?.name ?? (protocol === 'redline' ? 'the missions own proposers' : 'model');
  const redlineRoles = (condition: Condition): { judge: Judge; proposer?: Proposer } => ({
    judge: condition === 'redline' ? routingJudge() : selfJudge({ ask: options.ask as Ask, template: prompt.template }),
    ...(options.proposer === undefined ? {} : { proposer: options.proposer }),
  });
  const publishedRoles = (
    { protocol: published, task }: { protocol: Exclude<Protocol, 'redline'>; task: CodeTask },
    condition: Condition,
    prompts: PromptRecord[],
  ): { judge: Judge; proposer: Proposer; checks: Check[] } => {
    const ask = options.ask as Ask;
    const onPrompt = (record: PromptRecord): void => void prompts.push(record);
    return {
      proposer: publishedProposer({ ask, task, condition, protocol: published, injectTests, name: proposerName, onPrompt }),
      judge: condition === 'redline' ? routingJudge() : publishedJudge({ ask, task, protocol: published, onPrompt }),
      checks: [publishedCheck({ task, shadow: condition === 'selfjudge' })],
    };
  };
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
          const published = protocol !== 'redline' && task.kind === 'code' ? { protocol, task: task.task } : undefined;
          // A published protocol brings its own test (the script's), so its missions carry none of redline's.
          const missionOf = (of: Condition) =>
            trialMission({
              task,
              condition: of,
              studyId,
              trial,
              maxAttempts,
              testCheck: published === undefined,
              ...(workspace === undefined ? {} : { workspace }),
            });
          const mission = missionOf(condition);
          // The truth is the condition-A mission's required checks, whichever condition ran.
          const truthMission = condition === 'redline' ? mission : missionOf('redline');
          const oracle = new TruthOracle({
            checks: published === undefined ? await buildChecks(truthMission) : [publishedCheck({ task: published.task })],
            mission: truthMission,
            scratch: path.join(root, 'truth'),
            ranInLoop: truthMission === mission,
          });
          const prompts: PromptRecord[] = [];
          const roles = published === undefined ? redlineRoles(condition) : publishedRoles(published, condition, prompts);
          const result = await runMission({ mission, ledger, guards: [], scratchDir: root, signal, ...roles });
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
                ...(published === undefined ? {} : { prompts }),
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
      judgePrompt: protocol === 'redline' ? prompt.name : protocol,
      proposer: proposerName,
      ...(protocol === 'redline' ? {} : { protocol, injectTests }),
    },
    taskTypes: Object.fromEntries(conditions.map((condition) => [condition, studyTaskType(studyId, condition)])),
    trials: results,
    cells,
    comparisons,
    power: powerNote(trials),
    ...(classed ? { byClass: successByClass(results, maxAttempts) } : {}),
  };
}
