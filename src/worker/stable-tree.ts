import { hash } from 'node:crypto';
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../core/canonical-json.js';
import { contentHash, type ManifestEntry } from '../workspace/manifest.js';
import { readNoFollow, removeInside, removeTree } from '../workspace/safe-fs.js';
import { isRacy, lstatOrNothing, sameStamp, stampOf, type Stamp } from '../workspace/stamp.js';
import { ownerAlive } from '../workspace/workspace-cache.js';
import { thisOwner, type RunDirectoryOwner } from '../workspace/sweep.js';
import { checkTree, settleDirs, writeEntries, writeTree, type BlobSource } from './materialize.js';
import { chmodFolder } from '../workspace/settled-folder.js';
import type { Submission } from './submission.js';
import type { WorkspaceBounds } from './workspace-bounds.js';

// A worker keeps one directory per submitted workspace (docs/workers.md, "Reuse"): the next submission of
// the same workspace rewrites only the paths whose content, mode or kind changed, and the run's cache
// then finds the same workspace path with most of its stamps unchanged.

/** Where a worker keeps them, under its `--workdir`: no submission id can start with a dot. */
export const STABLE_DIR = '.workspaces';

/** What the tree held when its last submission let go of it (`state.json`): removed while one holds it. */
interface TreeState {
  readonly version: 1;
  readonly entries: [string, ManifestEntry][];
  /** Stamps of the files and symlinks taken right after they were written or checked. */
  readonly stamps: [string, Stamp][];
  /** The file system's clock when they were taken: a stamp at or after it is compared by content. */
  readonly settledAt: number;
}

/** What the lock file names: the process and the submission it runs. */
interface TreeOwner extends RunDirectoryOwner {
  readonly submission: string;
}

/** How a held tree came to hold its submission's manifest. */
export interface TreeReport {
  /** `new`: first use; `reused`: the previous tree, brought to this manifest; `rebuilt`: its state could not be trusted, written afresh. */
  readonly how: 'new' | 'reused' | 'rebuilt';
  /** Paths written: new, changed, or found changed on disk (a directory created counts too). */
  readonly written: number;
  /** Paths removed because the manifest lacks them (a directory with what it held counts once). */
  readonly removed: number;
  /** Files and symlinks kept as they were. */
  readonly kept: number;
  /** Of those rewritten, the ones whose manifest entry had not changed: found changed on disk since they were written. */
  readonly repaired: number;
}

/** One submission's hold on a workspace's stable directory. */
export interface HeldTree {
  /** The tree: what the submission's `workspace` leads to. */
  readonly tree: string;
  readonly report: TreeReport;
  /** Records the tree's state (the stamps taken when it was written) and removes the lock. */
  release(): void;
}

/**
 * The directory of a submitted workspace under `workdir`: keyed by who signed the submission (its key id,
 * or none on an unsigned row), its mission id and the workspace as its mission names it — a submission
 * records nothing else of where its workspace was.
 */
export function stableHomeOf(workdir: string, submission: Pick<Submission, 'signature' | 'missionId' | 'mission'>): string {
  const key = canonicalJson({
    keyId: submission.signature?.keyId ?? null,
    missionId: submission.missionId,
    workspace: submission.mission.workspace ?? null,
  });
  return path.join(workdir, STABLE_DIR, hash('sha256', key, 'hex').slice(0, 20));
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Takes the lock for `submission`, or names the live submission that holds it (a lock whose process is gone is taken over). */
function lock(home: string, submission: string): { held: true } | { held: false; by: string | undefined } {
  const file = path.join(home, 'lock');
  for (let tries = 0; tries < 2; tries += 1) {
    let fd: number;
    try {
      fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readJson<TreeOwner>(file);
      // A lock being written (no owner yet) or a live owner's: busy.
      if (owner === undefined || ownerAlive(owner)) return { held: false, by: owner?.submission };
      rmSync(file, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify({ ...thisOwner(), submission } satisfies TreeOwner));
    } finally {
      closeSync(fd);
    }
    return { held: true };
  }
  return { held: false, by: undefined };
}

/** Every path below `root` with its `lstat`, parents first; directories are made readable and writable to be listed and changed. */
function walk(root: string): Map<string, Stats> {
  const found = new Map<string, Stats>();
  const list = (dir: string): void => {
    const at = dir === '' ? root : path.join(root, dir);
    for (const name of readdirSync(at).sort()) {
      const file = dir === '' ? name : `${dir}/${name}`;
      const info = lstatSync(path.join(root, file));
      found.set(file, info);
      if (info.isDirectory()) {
        // Through the folder itself: one swapped for a symlink since the lstat fails the walk instead of changing what it leads to.
        if ((info.mode & 0o700) !== 0o700) chmodFolder(path.join(root, file), (info.mode & 0o7777) | 0o700);
        list(file);
      }
    }
  };
  list('');
  return found;
}

/** The file system's clock now, read from a marker file in `home`. */
function settledMark(home: string): number {
  const marker = path.join(home, 'settled');
  writeFileSync(marker, '');
  const info = lstatSync(marker);
  return Math.min(info.mtimeMs, info.ctimeMs);
}

/** Whether what is on disk at `file` is exactly `wanted` as the last state recorded it, untouched since. */
function unchanged(
  root: string,
  file: string,
  info: Stats,
  wanted: ManifestEntry,
  { state, before, stamps }: { state: TreeState; before: ReadonlyMap<string, ManifestEntry>; stamps: ReadonlyMap<string, Stamp> },
): boolean {
  if (wanted.type === 'dir') return info.isDirectory();
  if (wanted.type === 'symlink') return info.isSymbolicLink() && readlinkSync(path.join(root, file)) === wanted.target;
  const was = before.get(file);
  const stamp = stamps.get(file);
  // A hard link may lead outside the tree: the worker's own files have exactly one name.
  if (!info.isFile() || info.nlink !== 1 || was?.type !== 'file' || stamp === undefined) return false;
  if (was.hash !== wanted.hash || (wanted.mode & 0o777) !== (info.mode & 0o7777)) return false;
  const now = stampOf(info);
  if (!sameStamp(now, stamp)) return false;
  if (!isRacy(stamp, state.settledAt)) return true;
  try {
    const bytes = readNoFollow(path.join(root, file));
    return bytes.length === wanted.size && contentHash(bytes) === wanted.hash;
  } catch {
    return false;
  }
}

/**
 * Brings `root` from what `state` says it held to `manifest`: removes every path the manifest lacks and
 * every one that is not, untouched, what the manifest wants there (a file is trusted by its stamp, and by
 * its content when the stamp is racy), then writes what is missing.
 */
async function update(
  root: string,
  state: TreeState,
  manifest: readonly (readonly [string, ManifestEntry])[],
  rootMode: number,
  blobs: BlobSource,
): Promise<Omit<TreeReport, 'how'>> {
  const wanted = new Map(manifest);
  const before = new Map(state.entries);
  const stamps = new Map(state.stamps);
  chmodFolder(root, 0o700);
  const onDisk = walk(root);
  const gone = new Set<string>();
  const underGone = (file: string): boolean => {
    for (let at = file.lastIndexOf('/'); at > 0; at = file.lastIndexOf('/', at - 1)) if (gone.has(file.slice(0, at))) return true;
    return false;
  };
  const kept = new Set<string>();
  let repaired = 0;
  let removed = 0;
  for (const [file, info] of onDisk) {
    if (underGone(file)) continue;
    const want = wanted.get(file);
    if (want !== undefined && unchanged(root, file, info, want, { state, before, stamps })) {
      kept.add(file);
      continue;
    }
    if (want === undefined) removed += 1;
    removeInside(root, file, { onObstacle: 'replace' });
    gone.add(file);
  }
  const missing = manifest.filter(([file]) => !kept.has(file));
  for (const [file, want] of missing) {
    const was = before.get(file);
    if (want.type !== 'dir' && was !== undefined && canonicalJson(was) === canonicalJson(want)) repaired += 1;
  }
  await writeEntries(root, missing, blobs);
  settleDirs(root, manifest, rootMode);
  const notDirs = (files: Iterable<string>): number => [...files].filter((file) => wanted.get(file)?.type !== 'dir').length;
  return { written: missing.length, removed, kept: notDirs(kept), repaired };
}

/** Stamps of every file and symlink of the manifest as they are now. */
function stampsOf(root: string, manifest: readonly (readonly [string, ManifestEntry])[]): [string, Stamp][] {
  const stamps: [string, Stamp][] = [];
  for (const [file, entry] of manifest) {
    if (entry.type === 'dir') continue;
    const info = lstatOrNothing(path.join(root, file));
    if (info !== undefined) stamps.push([file, stampOf(info)]);
  }
  return stamps;
}

/**
 * Takes the stable directory of a submitted workspace (see {@link stableHomeOf}) and brings its tree to
 * `manifest`, or says who holds it: `{ busy }` with the submission a live process runs there (the caller
 * falls back to a fresh directory, or hands the job back when it is the same submission). The manifest is
 * checked (hash, paths, bounds) before anything is written. The tree's state is removed while it is held
 * and written back by `release`: a worker killed meanwhile, a state that cannot be read or a tree that is
 * gone make the next submission write the tree afresh (`rebuilt`); a state that reads well is still only a
 * start, every path compared with its stamp, so a tree changed between submissions is repaired.
 */
export async function takeStableTree({
  home,
  submission,
  manifest,
  expectedHash,
  rootMode,
  blobs,
  bounds,
}: {
  home: string;
  submission: string;
  manifest: readonly (readonly [string, ManifestEntry])[];
  expectedHash: string;
  rootMode: number;
  blobs: BlobSource;
  bounds: WorkspaceBounds;
}): Promise<HeldTree | { busy: string | undefined }> {
  checkTree(manifest, expectedHash, bounds);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const taken = lock(home, submission);
  if (!taken.held) return { busy: taken.by };
  const stateFile = path.join(home, 'state.json');
  const tree = path.join(home, 'tree');
  let done = false;
  try {
    const state = readJson<TreeState>(stateFile);
    rmSync(stateFile, { force: true });
    const there = lstatOrNothing(tree);
    let report: TreeReport;
    if (state?.version === 1 && Array.isArray(state.entries) && Array.isArray(state.stamps) && there?.isDirectory() === true)
      report = { how: 'reused', ...(await update(tree, state, manifest, rootMode, blobs)) };
    else {
      await removeTree(tree);
      await writeTree(tree, manifest, expectedHash, rootMode, blobs, bounds);
      report = { how: there === undefined ? 'new' : 'rebuilt', written: manifest.length, removed: 0, kept: 0, repaired: 0 };
    }
    const settledAt = settledMark(home);
    const next: TreeState = {
      version: 1,
      entries: [...manifest] as [string, ManifestEntry][],
      stamps: stampsOf(tree, manifest),
      settledAt,
    };
    done = true;
    let released = false;
    return {
      tree,
      report,
      release: () => {
        if (released) return;
        released = true;
        writeFileSync(`${stateFile}.partial`, JSON.stringify(next));
        renameSync(`${stateFile}.partial`, stateFile);
        rmSync(path.join(home, 'lock'), { force: true });
      },
    };
  } finally {
    // A tree half brought to its manifest has no state: the next submission writes it afresh.
    if (!done) rmSync(path.join(home, 'lock'), { force: true });
  }
}
