import { randomUUID } from 'node:crypto';
import { EMPTY_CANDIDATE } from '../core/candidate.js';
import type { Finding } from '../core/finding.js';
import type { Mission } from '../mission/mission.js';
import { buildChecks } from '../roles/build-checks.js';
import { holdRun } from '../workspace/held-runs.js';
import { RunWorkspace } from '../workspace/run-workspace.js';
import { checkCandidate } from './check-candidate.js';
import { environmentVerdict } from './environment.js';
import { baselineChannel, type BaselineInventories } from './inventories.js';
import { checkPlan, sandboxOf } from './run-setup.js';

/** What a mission's checks say of its unchanged workspace, as a run's baseline would. */
export interface BaselineReport {
  readonly findings: readonly Finding[];
  /** Each test-runner check's cases, by check name. */
  readonly inventories: BaselineInventories;
  /** Why a required check cannot run here (the `blocked / environment` detail a run would stop with), if it cannot. */
  readonly environment?: string;
}

/**
 * Runs a mission's check plan once on its unchanged workspace, in an isolated copy as a run's baseline
 * does (shadow checks left out), and says what the test-runner checks found. Nothing is recorded and the
 * workspace is only read.
 * @throws {TypeError} for a mission without a workspace.
 * @example
 * const { inventories, environment } = await checkBaseline({ mission: await loadMission('mission.yaml') });
 */
export async function checkBaseline({
  mission,
  scratchDir,
  signal = new AbortController().signal,
}: {
  readonly mission: Mission;
  /** @default process.env.REDLINE_SCRATCH ?? os.tmpdir() */
  readonly scratchDir?: string;
  readonly signal?: AbortSignal;
}): Promise<BaselineReport> {
  if (mission.workspaceDir === undefined) throw new TypeError(`Expected a mission with a workspace, got mission ${mission.id} without one`);
  const checks = checkPlan(mission, await buildChecks(mission), []).filter((check) => check.shadow !== true);
  const runId = `baseline-${randomUUID()}`;
  // Held while it lives: a run's recovery in this process (its sweep of run directories) leaves it alone.
  const release = holdRun(runId);
  let workspace: RunWorkspace;
  try {
    workspace = await RunWorkspace.start({
      runId,
      workspace: mission.workspaceDir,
      ignore: mission.ignore,
      ...(scratchDir === undefined ? {} : { scratchDir }),
    });
  } catch (error) {
    release();
    throw error;
  }
  try {
    const inventory = baselineChannel();
    const sandbox = sandboxOf(mission)?.checks;
    const { findings } = await checkCandidate({
      checks,
      candidate: EMPTY_CANDIDATE,
      context: { goal: mission.goal, attempt: 0, signal, inventory: inventory.channel, ...(sandbox === undefined ? {} : { sandbox }) },
      files: workspace,
    });
    const environment = environmentVerdict(checks, findings, mission.scope)?.detail;
    return { findings, inventories: inventory.recorded(), ...(environment === undefined ? {} : { environment }) };
  } finally {
    await workspace.dispose();
    release();
  }
}
