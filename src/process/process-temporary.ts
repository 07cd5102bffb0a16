import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** This host, in a few characters: a temp folder shared between machines or containers is not swept for another's. */
const HOST = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 6);

/** `redline-<kind>-<pid>-<host>-XXXXXX`: whose a temporary directory is, read back by the sweep. */
const NAME = /^redline-([a-z]+(?:-[a-z]+)*)-(\d+)-([0-9a-f]{6})-[A-Za-z0-9]{6}$/;

/**
 * Makes a temporary directory of this process in the system temp folder, named so that
 * {@link sweepProcessTemporaries} can remove it once the process is gone: a redline killed with SIGKILL
 * never removes what it made.
 *
 * @example
 * processTemporary('tmp'); // '/tmp/redline-tmp-4242-3fa9c1-Ab12Cd'
 */
export function processTemporary(kind: string, tmp = os.tmpdir()): string {
  return mkdtempSync(path.join(tmp, `redline-${kind}-${process.pid}-${HOST}-`));
}

/** Whether process `pid` of this host may still be running (a pid it cannot signal counts as alive). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary directories ({@link processTemporary}) that processes of this host left behind
 * and that are gone now; the directories of live processes, of other hosts and anything else in the temp
 * folder are left alone. Returns the names removed.
 */
export async function sweepProcessTemporaries(tmp = os.tmpdir()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(tmp);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = NAME.exec(name);
    if (match === null || match[3] !== HOST || alive(Number(match[2]))) continue;
    try {
      await rm(path.join(tmp, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Not ours to remove after all (another user's), or going away meanwhile: left for its owner.
    }
  }
  return removed;
}
