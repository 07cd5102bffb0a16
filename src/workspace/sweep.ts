import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { holdsRun } from './held-runs.js';
import { removeTree } from './safe-fs.js';

/** Who is working in a run directory: written first when it is created, rewritten when a run resumes. */
export interface RunDirectoryOwner {
  readonly host: string;
  readonly pid: number;
}

/** The owner record of this process. */
export function thisOwner(): RunDirectoryOwner {
  return { host: hostname(), pid: process.pid };
}

/** The file a run directory gets once its run is in a ledger (`run.started` was stored). */
export const RECORDED = 'recorded';

/** Suffix of a run directory being removed (renamed first, so removal never delays a seal). */
export const REMOVING = '~removing';

function alive({ host, pid }: RunDirectoryOwner, runId: string): boolean {
  if (host !== hostname()) return true;
  if (pid === process.pid) return holdsRun(runId);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes what crashed processes left in `<scratchDir>/redline-runs`: directories renamed for removal,
 * and directories whose owner (on this host) is gone, when the ledger says their run is sealed or the
 * run never got into a ledger. A directory of a recorded run this ledger does not know is kept: it
 * may be another ledger's run, waiting to be resumed. Returns the run ids removed.
 */
export async function sweepRunDirectories({
  root,
  runState,
}: {
  root: string;
  runState: (runId: string) => Promise<'unsealed' | 'sealed' | 'unknown'>;
}): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const dir = path.join(root, name);
    if (name.includes(REMOVING)) {
      await removeTree(dir);
      continue;
    }
    let owner: RunDirectoryOwner;
    try {
      owner = JSON.parse(await readFile(path.join(dir, 'owner.json'), 'utf8')) as RunDirectoryOwner;
    } catch {
      continue;
    }
    if (alive(owner, name)) continue;
    const state = await runState(name);
    if (state === 'unsealed') continue;
    const recorded = await readFile(path.join(dir, RECORDED)).then(
      () => true,
      () => false,
    );
    if (state === 'sealed' || !recorded) {
      await removeTree(dir);
      removed.push(name);
    }
  }
  return removed;
}
