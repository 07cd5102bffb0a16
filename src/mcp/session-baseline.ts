import { randomUUID } from 'node:crypto';
import { startWorkspace } from '../loop/run-setup.js';
import type { Mission } from '../mission/mission.js';
import type { RunWorkspace } from '../workspace/run-workspace.js';
import { holdRun } from '../workspace/held-runs.js';
import { removeTree } from '../workspace/safe-fs.js';

/** The workspace as a session found it: its snapshot (with the check copy `redline_checks` uses) and a frozen copy. */
export interface SessionBaseline {
  readonly workspace: RunWorkspace;
  /** The baseline frozen into a directory nothing writes to: what each run of the session snapshots. */
  readonly frozen: string;
  /** Removes the baseline's directory; later calls wait for the first. */
  remove(): Promise<void>;
}

/**
 * Takes the session's baseline: the mission's workspace now, before the agent changes it. Light to load (no
 * loop, no SDK), so `redline mcp` takes it right after the handshake: the agent may start editing as soon as
 * it has the tools.
 * @throws {TypeError} for a mission without a workspace.
 * @throws {MissionError} when the workspace cannot be read whole.
 */
export async function takeBaseline({
  mission,
  scratchDir,
}: {
  mission: Mission;
  scratchDir?: string | undefined;
}): Promise<SessionBaseline> {
  if (mission.workspaceDir === undefined) throw new TypeError(`Expected a mission with a workspace, got mission ${mission.id} without one`);
  const runId = `mcp-${randomUUID()}`;
  // Held while the session lives, so that recovery in this process (at `redline mcp`'s start) leaves it alone.
  const release = holdRun(runId);
  const workspace = await startWorkspace(mission, {
    runId,
    workspace: mission.workspaceDir,
    ignore: mission.ignore,
    ...(scratchDir === undefined ? {} : { scratchDir }),
  }).catch((error: unknown) => {
    release();
    throw error;
  });
  let removed: Promise<void> | undefined;
  const remove = (): Promise<void> =>
    (removed ??= (async () => {
      try {
        await workspace.close();
        await removeTree(workspace.runDir);
      } finally {
        release();
      }
    })());
  try {
    // Runs snapshot a tree nothing writes to: the baseline's own copy, never reset or handed to a check.
    return { workspace, frozen: await workspace.agentCopy({}), remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
