import { hostname } from 'node:os';

/** Who runs a run: recorded so that recovery can tell a crashed run from a live one. */
export function ownerInfo(): { host: string; pid: number } {
  return { host: hostname(), pid: process.pid };
}
