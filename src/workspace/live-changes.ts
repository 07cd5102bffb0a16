import { createHash } from 'node:crypto';
import { closeSync, constants, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { pathIn } from './path-in.js';
import type { Snapshot } from './snapshot.js';
import { isRacy, lstatOrNothing, sameStamp, stampAt, stampOf, type Stamp } from './stamp.js';
import { sweptLookup, unchangedAt } from './stamp-sweep.js';

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
 * sorted; ignored paths do not count. One `lstat` per snapshot path, compared with the stamp the snapshot
 * took: a file or symlink whose stamp is unchanged is not read again; a directory is listed (for created
 * entries) only when its stamp changed, or could be shared by a change in the clock tick in which the
 * snapshot's walk began (every directory, when that time is not known).
 */
export async function liveChanges(snapshot: Snapshot): Promise<string[]> {
  const { workspace, manifest, live, ignored, startedAt } = snapshot;
  const changed = new Set<string>();
  const buffer = Buffer.allocUnsafe(1 << 20);
  let handled = 0;
  const pace = async (): Promise<void> => {
    handled += 1;
    if (handled % BATCH === 0) await yieldToLoop();
  };
  /** Every entry of `dir` the snapshot does not hold, and what lies below those that are directories. */
  const created = async (dir: string): Promise<void> => {
    let names: string[];
    try {
      names = readdirSync(dir === '' ? workspace : path.join(workspace, dir));
    } catch {
      return;
    }
    for (const name of names) {
      const file = dir === '' ? name : `${dir}/${name}`;
      if (ignored(file) || manifest.has(file)) continue;
      await pace();
      const info = lstatOrNothing(pathIn(workspace, file));
      // A name that is not UTF-8 reads back with U+FFFD and cannot be found under it: reported, so that
      // callers refuse it instead of leaving it out unseen.
      if (info === undefined && name.includes('\uFFFD')) changed.add(file);
      // Sockets, FIFOs and devices are never part of a snapshot.
      if (info === undefined || !(info.isFile() || info.isDirectory() || info.isSymbolicLink())) continue;
      changed.add(file);
      if (info.isDirectory()) await created(file);
    }
  };
  const rootInfo = lstatOrNothing(workspace);
  const rootBefore = live.get('');
  if (rootInfo?.isDirectory() && (rootBefore === undefined || listed(stampOf(rootInfo), rootBefore, startedAt))) await created('');
  // Directories of the snapshot that are no longer directories: what the snapshot held below them is gone
  // (never looked up through what replaced them, which may be a symlink to anywhere).
  const gone = new Set<string>();
  // Which paths still have the snapshot's stamps, found on two threads for a large workspace: only the
  // others are stamped here. What lies below a folder found gone or replaced is never taken from it.
  const swept = sweptLookup(await unchangedAt(workspace, live));
  for (const [file, entry] of manifest) {
    await pace();
    const slash = file.lastIndexOf('/');
    if (slash !== -1 && gone.has(file.slice(0, slash))) {
      changed.add(file);
      if (entry.type === 'dir') gone.add(file);
      continue;
    }
    const target = pathIn(workspace, file);
    const before = live.get(file);
    const now = before !== undefined && swept(file, before) ? before : stampAt(target);
    if (entry.type === 'dir' && now?.kind !== 'dir') gone.add(file);
    if (now === undefined) {
      changed.add(file);
      continue;
    }
    if (now.kind === 'dir') {
      if (entry.type !== 'dir' || now.mode !== entry.mode) changed.add(file);
      if (entry.type !== 'dir' || before === undefined || listed(now, before, startedAt)) await created(file);
      continue;
    }
    if (now.kind === 'symlink') {
      if (entry.type !== 'symlink' || readlinkSync(target) !== entry.target) changed.add(file);
      continue;
    }
    if (now.kind !== 'file' || entry.type !== 'file') {
      changed.add(file);
      continue;
    }
    // A stamp taken in the clock tick the walk began in could be shared by a later write: read again.
    if (before !== undefined && sameStamp(before, now) && (startedAt === undefined || !isRacy(before, startedAt))) continue;
    if (now.size !== entry.size || now.mode !== entry.mode || hashOf(target, buffer) !== entry.hash) changed.add(file);
  }
  return [...changed].sort();
}

/** Whether a directory has to be listed: its stamp changed, or was taken where a later change could share it. */
function listed(now: Stamp, before: Stamp, startedAt: number | undefined): boolean {
  return !sameStamp(now, before) || startedAt === undefined || isRacy(before, startedAt);
}
