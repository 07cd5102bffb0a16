import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

/** Bounds the rescans of {@link killTagged}: a process forking as fast as it can is still caught within a few. */
const MAX_ROUNDS = 20;
const block = Buffer.allocUnsafe(64 * 1024);

/** Whether this system shows each process's environment under `procRoot` (Linux does; macOS does not). */
export function canFindTagged(procRoot = '/proc'): boolean {
  return existsSync(`${procRoot}/self/environ`);
}

/** The environment a process was started with, or undefined when it cannot be read (gone, foreign). */
function readEnviron(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const length = readSync(fd, block, 0, block.length, 0);
    // Almost every environment fits the block; only a bigger one costs a second, full read.
    return length < block.length ? block.subarray(0, length) : readFileSync(file);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The pids of the processes whose environment holds the variable `tag`. A zombie has no environment
 * left and a process we may not inspect cannot be read: both are skipped. This process is never listed.
 */
export function findTagged(tag: string, procRoot = '/proc'): number[] {
  const needle = Buffer.from(`\0${tag}=`);
  const first = needle.subarray(1);
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync(procRoot);
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const environ = readEnviron(`${procRoot}/${entry}/environ`);
    if (environ === undefined) continue;
    // Entries are NUL-separated `NAME=value`: match a whole name, never the inside of a value.
    if (environ.indexOf(needle) !== -1 || environ.subarray(0, first.length).equals(first)) pids.push(pid);
  }
  return pids;
}

/**
 * Sends SIGKILL to every process carrying `tag`, scanning again after each round because a process may
 * fork between a scan and its kill. A killed process cannot fork any more, so the rounds stop as soon
 * as a scan finds nobody new. Returns how many processes were signalled.
 *
 * A process that replaced its environment (`env -i`, or exec with a fresh one) no longer carries the
 * marker and is not found; a PID namespace (runProcess's own on Linux, or the bwrap sandbox's) closes
 * that gap, and runProcess sweeps for markers only where there is none.
 */
export function killTagged(tag: string, procRoot = '/proc'): number {
  const signalled = new Set<number>();
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const fresh = findTagged(tag, procRoot).filter((pid) => !signalled.has(pid));
    if (fresh.length === 0) break;
    for (const pid of fresh) {
      signalled.add(pid);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // It exited between the scan and the kill.
      }
    }
  }
  return signalled.size;
}
