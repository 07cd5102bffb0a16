import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defineMission, type Mission } from '../../mission/mission.js';
import type { CodeTask } from './tasks.js';

/** The two conditions: A stops on the demand red line, B lets the model judge itself. */
export type Condition = 'redline' | 'selfjudge';
export const CONDITIONS: readonly Condition[] = ['redline', 'selfjudge'];

/** A study task: a code task of the published format, or a redline mission file run as it is. */
export type StudyTask = { readonly kind: 'code'; readonly task: CodeTask } | { readonly kind: 'mission'; readonly mission: Mission };

/** The id a task is reported under. */
export const taskId = (task: StudyTask): string => (task.kind === 'code' ? task.task.id : task.mission.id);

/** The task type every trial of one condition of a study is recorded under: what `replay` and `report stop-quality` select. */
export const studyTaskType = (studyId: string, condition: Condition): string => `study-${studyId}.${condition}`;

/** Runs `solution.py`, then the test statement, in one namespace: the published script's check. */
const checkScript = (task: CodeTask): string =>
  [
    'with open("solution.py", encoding="utf-8") as source:',
    '    code = source.read()',
    'scope = {"__name__": "__main__"}',
    'exec(compile(code, "solution.py", "exec"), scope)',
    `exec(compile(${JSON.stringify(task.testStmt)}, "test", "exec"), scope)`,
    '',
  ].join('\n');

/**
 * Writes a code task's workspace under `root`: `check.py` (out of the candidate's scope) and the starting
 * `solution.py` when the task has one. Returns its directory.
 */
export async function writeTaskWorkspace(task: CodeTask, root: string): Promise<string> {
  const dir = path.join(root, task.id);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'check.py'), checkScript(task));
  if (task.code !== undefined) await writeFile(path.join(dir, 'solution.py'), task.code);
  return dir;
}

/** A mission's input without the fields `defineMission` adds. */
function inputOf(mission: Mission): Record<string, unknown> {
  const { baseDir: _baseDir, workspaceDir: _workspaceDir, ...input } = mission;
  return input;
}

/**
 * The mission of one trial. Its id names the study, task, condition and trial; its task type names the study and
 * condition. Under `selfjudge` every check is a shadow: it records the truth at the seal and never stops the run.
 */
export function trialMission({
  task,
  workspace,
  condition,
  studyId,
  trial,
  maxAttempts,
  testCheck = true,
}: {
  task: StudyTask;
  /** The code task's workspace (from {@link writeTaskWorkspace}). */
  workspace?: string;
  condition: Condition;
  studyId: string;
  trial: number;
  maxAttempts: number;
  /** Whether a code task's mission carries its test (the published protocol brings its own check instead). @default true */
  testCheck?: boolean;
}): Mission {
  const shadow = condition === 'selfjudge' ? { shadow: true } : {};
  const id = `study-${studyId}.${taskId(task)}.${condition}.${trial}`;
  const common = { id, taskType: studyTaskType(studyId, condition), budgets: { maxAttempts } };
  if (task.kind === 'mission') {
    const input = inputOf(task.mission);
    const checks = task.mission.checks.map((check) => ({ ...check, ...shadow }));
    return defineMission(
      { ...input, ...common, budgets: { ...task.mission.budgets, maxAttempts }, checks },
      { baseDir: task.mission.baseDir },
    );
  }
  const { task: code } = task;
  return defineMission({
    ...common,
    goal: `${code.desc}\nThe code lives in solution.py: write its complete content.`,
    workspace,
    scope: ['solution.py'],
    checks: testCheck
      ? [{ name: 'tests', kind: 'expected-output', command: ['python3', 'check.py'], expected: code.expected, timeout: 30_000, ...shadow }]
      : [],
  });
}
