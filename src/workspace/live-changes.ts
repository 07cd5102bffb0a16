import { createHash } from 'node:crypto';
import { closeSync, constants, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { pathIn } from './path-in.js';
import type { Snapshot } from './snapshot.js';
import { lstatOrNothing, sameStamp, stampOf } from './stamp.js';

const BATCH = 1024;

function hashOf(target: string, buffer: Buffer): string | undefined {
  let fd: number;
  try {
    fd = openSync(target, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const digest = createHash('sha256');
    for (let n = readSync(fd, buffer, 0, buffer.length, null); n > 0; n = readSync(fd, buffer, 0, buffer.length, null))
      digest.update(buffer.subarray(0, n));
    return digest.digest('hex');
  } finally {
    closeSync(fd);
  }
}

/**
 * The paths where the live workspace no longer matches the snapshot (changed, created or deleted),
 * sorted; ignored paths do not count. Files whose `lstat` stamp is as it was when the snapshot read
 * them are not read again.
 */
export async function liveChanges(snapshot: Snapshot): Promise<string[]> {
  const changed = new Set<string>();
  const seen = new Set<string>();
  const buffer = Buffer.allocUnsafe(1 << 20);
  const dirs: string[] = [''];
  let handled = 0;
  for (let dir = dirs.pop(); dir !== undefined; dir = dirs.pop()) {
    let names: string[];
    try {
      names = readdirSync(dir === '' ? snapshot.workspace : path.join(snapshot.workspace, dir));
    } catch {
      continue;
    }
    for (const name of names) {
      const file = dir === '' ? name : `${dir}/${name}`;
      if (snapshot.ignored(file)) continue;
      seen.add(file);
      handled += 1;
      if (handled % BATCH === 0) await yieldToLoop();
      const target = pathIn(snapshot.workspace, file);
      const info = lstatOrNothing(target);
      const entry = snapshot.manifest.get(file);
      // A name that is not UTF-8 reads back with U+FFFD and cannot be found under it: reported, so that
      // callers refuse it instead of leaving it out unseen.
      if (info === undefined && name.includes('\uFFFD')) changed.add(file);
      // Sockets, FIFOs and devices are never part of a snapshot.
      if (info === undefined || !(info.isFile() || info.isDirectory() || info.isSymbolicLink())) continue;
      if (info.isDirectory()) {
        dirs.push(file);
        if (entry?.type !== 'dir' || (info.mode & 0o7777) !== entry.mode) changed.add(file);
        continue;
      }
      if (entry === undefined) {
        changed.add(file);
        continue;
      }
      if (info.isSymbolicLink()) {
        if (entry.type !== 'symlink' || readlinkSync(target) !== entry.target) changed.add(file);
        continue;
      }
      if (entry.type !== 'file') {
        changed.add(file);
        continue;
      }
      const before = snapshot.live.get(file);
      if (before !== undefined && sameStamp(before, stampOf(info))) continue;
      if (info.size !== entry.size || (info.mode & 0o7777) !== entry.mode || hashOf(target, buffer) !== entry.hash) changed.add(file);
    }
  }
  for (const file of snapshot.manifest.keys()) if (!seen.has(file)) changed.add(file);
  return [...changed].sort();
}
