import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Check } from '../core/check.js';
import { declaredOutputsCheck } from '../checks/declared-outputs-check.js';
import { scopeCheck } from '../checks/scope-check.js';
import { MissionError } from '../errors/mission-error.js';
import { WorkspaceUnreadableError } from '../errors/workspace-unreadable-error.js';
import type { Mission } from '../mission/mission.js';
import type { Proposer, ProposerSandbox } from '../proposers/proposer.js';
import { sandboxProblem } from '../process/sandbox-problem.js';
import { RunWorkspace, type RunWorkspaceOptions } from '../workspace/run-workspace.js';

// What a run settles before its first record: the checks it runs, whether it can run at all, its
// workspace snapshot and its sandbox.

/** The checks a run of the mission runs, in order: scope, declared outputs, the mission's own, then custom ones. */
export function checkPlan(mission: Mission, fromSpec: readonly Check[], custom: readonly Check[]): Check[] {
  const plan = [
    ...(mission.workspaceDir === undefined ? [] : [scopeCheck(mission.scope)]),
    ...(mission.declaredOutputs.length > 0 ? [declaredOutputsCheck(mission.declaredOutputs)] : []),
    ...fromSpec,
    ...custom,
  ];
  const seen = new Set<string>();
  for (const check of plan) {
    if (seen.has(check.name)) throw new TypeError(`Expected unique check names, got "${check.name}" twice`);
    seen.add(check.name);
  }
  return plan;
}

/**
 * Refuses, before anything is recorded, a mission whose workspace is missing or is the file system's root,
 * whose sandbox cannot be had, or whose budgets cannot be measured.
 */
export async function assertRunnable(mission: Mission, proposer: Proposer): Promise<void> {
  const issues = [];
  if (
    mission.workspaceDir !== undefined &&
    !(await stat(mission.workspaceDir).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
    issues.push({
      path: 'workspace',
      expected: 'an existing directory',
      got: mission.workspaceDir,
      message: `the workspace ${mission.workspaceDir} is not a directory`,
    });
  } else if (mission.workspaceDir !== undefined && path.parse(mission.workspaceDir).root === mission.workspaceDir) {
    issues.push({
      path: 'workspace',
      expected: 'a project directory',
      got: mission.workspaceDir,
      message: `the workspace ${mission.workspaceDir} is the root of the file system: snapshotting and copying it is refused`,
    });
  }
  const sandbox = sandboxOf(mission);
  const unavailable = sandbox === undefined ? undefined : await sandboxProblem({ kind: 'bwrap', writable: [], network: false });
  if (unavailable !== undefined)
    issues.push({ path: 'sandbox', expected: 'bubblewrap (bwrap) available', got: 'bwrap unavailable', message: unavailable });
  if (mission.budgets.maxTokens !== undefined && !proposer.capabilities.reportsTokens) {
    issues.push({
      path: 'budgets.maxTokens',
      expected: 'a proposer that reports token usage',
      got: `proposer ${proposer.name}`,
      message: `a token budget cannot be measured: proposer ${proposer.name} does not report token usage`,
    });
  }
  if (mission.budgets.maxCostUsd !== undefined && !proposer.capabilities.reportsCost) {
    issues.push({
      path: 'budgets.maxCostUsd',
      expected: 'a proposer that reports cost',
      got: `proposer ${proposer.name}`,
      message: `a cost budget cannot be measured: proposer ${proposer.name} does not report cost (set a model price or reportsCost)`,
    });
  }
  if (issues.length > 0) throw new MissionError({ source: mission.id, issues });
}

/**
 * The run's snapshot and check copy. A workspace that cannot be read whole is the mission's problem,
 * reported before anything is recorded, like a missing workspace.
 */
export async function startWorkspace(mission: Mission, options: RunWorkspaceOptions): Promise<RunWorkspace> {
  try {
    return await RunWorkspace.start(options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!(error instanceof WorkspaceUnreadableError) && code !== 'EACCES' && code !== 'EPERM' && code !== 'ENOENT' && code !== 'ENOTDIR')
      throw error;
    throw new MissionError({
      source: mission.id,
      issues: [
        {
          path: 'workspace',
          expected: 'a workspace redline can read whole into its snapshot',
          got: options.workspace,
          message: (error as Error).message,
        },
      ],
    });
  }
}

/** The OS sandbox of the mission, if any: whether proposers and checks may use the network. */
export function sandboxOf(mission: Mission): { proposer: ProposerSandbox; checks: ProposerSandbox } | undefined {
  if (mission.sandbox === 'none') return undefined;
  const network = mission.sandbox === 'bwrap' ? 'none' : mission.sandbox.network;
  return { proposer: { kind: 'bwrap', network: network !== 'none' }, checks: { kind: 'bwrap', network: network === 'all' } };
}

/**
 * A resumed run must run the checks it started with, in the same order.
 * @throws {MissionError} naming the checks it started with and the ones it has now.
 */
export function assertSamePlan(mission: Mission, checkNames: readonly string[], checks: readonly Check[]): void {
  if (checkNames.join('\n') === checks.map((check) => check.name).join('\n')) return;
  throw new MissionError({
    source: mission.id,
    issues: [
      {
        path: 'checks',
        expected: `the checks the run started with (${checkNames.join(', ')})`,
        got: checks.map((check) => check.name).join(', '),
        message: 'a resumed run must run the same check plan',
      },
    ],
  });
}
