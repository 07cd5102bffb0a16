import { readdirSync, readFileSync } from 'node:fs';
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
