import { randomInt } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Whether `pid` is a running process. A zombie counts as ended: it can no longer run, and the init
 * of some machines (this CI's included) reaps orphans only every few seconds.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  try {
    // `pid (comm) S …`: the state follows the last parenthesis, since comm may hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Waits up to `withinMs` for `pid` to end, since a SIGKILL takes a moment to land; true if it did. */
export async function ends(pid: number, withinMs = 2000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/** Waits up to `withinMs` for `condition` to hold, checking every 10 ms; true if it did. */
export async function eventually(condition: () => boolean, withinMs = 2000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/** The running processes with `token` in their command line: finds sandboxed processes, whose own pids are namespaced. */
export function runningWithArg(token: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(token);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(isRunning);
}

/** A `sleep` duration no other process has: the token that finds its processes on the host, whatever their pids inside a namespace. */
export const token = (): string => `300.${randomInt(1e9)}`;

/**
 * What an agent's shell tool may leave behind, each process running under `sleep` once its file exists in
 * `dir`: a grandchild in a new session with a cleared environment (the marker's blind spot), a `nohup`
 * child, a `setsid` child. The command returns once all three run.
 */
export const leaveBehind = (sleep: string, dir = '.'): string =>
  `env -i setsid sh -c '(touch ${dir}/a; exec sleep ${sleep}) &'; ` +
  `nohup sh -c 'touch ${dir}/b; exec sleep ${sleep}' >/dev/null 2>&1 & ` +
  `setsid sh -c 'touch ${dir}/c; exec sleep ${sleep}' & ` +
  `while [ ! -e ${dir}/a ] || [ ! -e ${dir}/b ] || [ ! -e ${dir}/c ]; do sleep 0.01; done`;

/** Whether the three of {@link leaveBehind} run, in `dir`. */
export const allStarted = (dir: string): boolean => ['a', 'b', 'c'].every((file) => existsSync(path.join(dir, file)));

/** Whether every process with `sleep` in its command line ends (within 2 s each); kills the survivors either way. */
export async function noneLeft(sleep: string): Promise<boolean> {
  const left = runningWithArg(sleep);
  const ended = await Promise.all(left.map((pid) => ends(pid)));
  for (const pid of runningWithArg(sleep)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // It ended meanwhile.
    }
  }
  return ended.every(Boolean);
}
