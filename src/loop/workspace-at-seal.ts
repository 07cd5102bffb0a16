import type { SealedData } from '../ledger/run-records.js';
import type { RunWorkspace } from '../workspace/run-workspace.js';

/** Paths of `workspace.changed_during_run` kept in the seal record; the count says how many there were. */
const CHANGED_PATHS_RECORDED = 100;

/**
 * The seal's account of the workspace: the snapshot's hashes of the sealed candidate's files (for
 * admission), and the paths of the live tree that changed while the run ran (they could not change what
 * the checks saw; the seal records them as evidence, or that the tree could not be read).
 */
export async function workspaceAtSeal(
  files: RunWorkspace | undefined,
  footprint: readonly string[],
): Promise<{ data: Pick<SealedData, 'baseline' | 'evidence'>; changed: readonly string[] }> {
  if (files === undefined) return { data: {}, changed: [] };
  const baselineData = { baseline: { manifest: files.snapshot.hash, files: files.baselineOf(footprint) } };
  let changed: string[];
  try {
    changed = await files.liveChanges();
  } catch (error) {
    return {
      data: { ...baselineData, evidence: [{ code: 'workspace.unreadable_at_seal', message: (error as Error).message }] },
      changed: [],
    };
  }
  if (changed.length === 0) return { data: baselineData, changed };
  return {
    data: {
      ...baselineData,
      evidence: [{ code: 'workspace.changed_during_run', count: changed.length, paths: changed.slice(0, CHANGED_PATHS_RECORDED) }],
    },
    changed,
  };
}
