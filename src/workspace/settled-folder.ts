import { chmodSync, closeSync, constants, fchmodSync, openSync, readdirSync } from 'node:fs';
import type { Manifest } from './manifest.js';
import { pathIn } from './path-in.js';
import { removeInside } from './safe-fs.js';
import { lstatOrNothing, stampOf, type Stamp } from './stamp.js';

/** Listings of one folder before {@link settledFolderStamp} gives up on a folder that keeps filling. */
const TRIES = 8;

/**
 * The stamp of folder `dir` ('' is the root) of the copy at `root`, taken once it holds only the entries
 * `expected` accepts: anything else (created by a process left behind, or one that watched the copy being
 * written) is removed first, so that the stamp, which a later walk trusts, cannot hide it. The stamp is
 * taken before the listing that found the folder clean: an entry created after it changes the folder's
 * times. Undefined when no folder is there; throws when it keeps getting entries it should not hold.
 */
export function settledFolderStamp(root: string, dir: string, expected: (file: string) => boolean): Stamp | undefined {
  for (let tries = 0; tries < TRIES; tries += 1) {
    const info = lstatOrNothing(pathIn(root, dir));
    if (info === undefined || !info.isDirectory()) return undefined;
    const unexpected = readdirSync(pathIn(root, dir))
      .map((name) => (dir === '' ? name : `${dir}/${name}`))
      .filter((child) => !expected(child));
    if (unexpected.length === 0) return stampOf(info);
    for (const child of unexpected) removeInside(root, child, { onObstacle: 'replace' });
  }
  throw new Error(`${pathIn(root, dir)} keeps getting entries it should not hold: something still writes in the copy`);
}

/** A folder of a copy found replaced (by a symlink, a file) or gone while the copy was written. */
const replacedFolder = (folder: string): Error =>
  new Error(`${folder} is no longer a folder: something replaced it while the copy was written`);

/** Sets a folder's mode through a descriptor of the folder itself, never through a symlink put in its place. */
export function chmodFolder(folder: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') throw replacedFolder(folder);
    if (code !== 'EACCES') throw error;
    // A folder its owner may not read (mode -wx) cannot be opened, only changed by its path: once more known a folder.
    if (lstatOrNothing(folder)?.isDirectory() !== true) throw replacedFolder(folder);
    chmodSync(folder, mode);
    return;
  }
  try {
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

/**
 * Finishes the folders of a copy just written from `manifest` (kept writable while it was filled): each
 * gets its own mode, then its stamp once it holds only what it should (see {@link settledFolderStamp}),
 * the root last, with `rootMode`. The stamps go into `stamps`. A folder found replaced or gone fails it,
 * naming the folder: nothing written through a symlink put in its place is kept as the copy's.
 */
export function settleWrittenFolders(root: string, manifest: Manifest, rootMode: number, stamps: Map<string, Stamp>): void {
  const expected = (file: string): boolean => manifest.has(file);
  const settle = (dir: string, mode: number): void => {
    if ((mode & 0o700) !== 0o700) chmodFolder(pathIn(root, dir), mode);
    const stamp = settledFolderStamp(root, dir, expected);
    if (stamp === undefined) throw replacedFolder(pathIn(root, dir));
    stamps.set(dir, stamp);
  };
  for (const [file, entry] of manifest) if (entry.type === 'dir') settle(file, entry.mode);
  settle('', rootMode);
}
