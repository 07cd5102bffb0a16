import { chmodSync, lstatSync, mkdirSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { CopyWriter } from './copy-writer.js';
import { inputChanges } from './input-changes.js';
import { contentHash, type ManifestEntry } from './manifest.js';
import { mkdirInside, readNoFollow, removeInside, removeTree, symlinkInside, writeInside } from './safe-fs.js';
import { pathIn } from './path-in.js';
import { settledFolderStamp, settleWrittenFolders } from './settled-folder.js';
import type { Snapshot } from './snapshot.js';
import { isRacy, lstatOrNothing, processUmask, sameStamp, stampAt, writtenStamp, type Stamp } from './stamp.js';
import { sweptUnchanged, unchangedAt } from './stamp-sweep.js';

const BATCH = 512;

function parentOf(file: string): string {
  const slash = file.lastIndexOf('/');
  return slash === -1 ? '' : file.slice(0, slash);
}

/** A file a candidate writes, as the copy should hold it. */
type Wanted =
  ManifestEntry | { readonly type: 'file'; readonly mode: number; readonly size: number; readonly hash: string; readonly text: string };

/** Candidate files: new content by path, `null` deletes the snapshot's file. */
export type CandidateFiles = Readonly<Record<string, string | null>>;

/** How a copy differs from what it should hold, found by {@link WorkCopy.scan}. */
export interface Drift {
  /** Expected paths that are missing, changed, or of another kind. */
  readonly changed: ReadonlySet<string>;
  /** Paths that should not exist (created by a check or an agent), topmost only. */
  readonly extra: ReadonlySet<string>;
}

/** A stamp no path has: whatever is there now differs from it. */
const NO_STAMP: Stamp = Object.freeze({ kind: 'other', ino: -1, size: -1, mtimeMs: -1, ctimeMs: -1, mode: -1 });

/** The drift of a copy nothing was done to since it was written or reset. */
const NOTHING_TO_UNDO: Drift = Object.freeze({ changed: new Set<string>(), extra: new Set<string>() });

/** What one reset did, for benchmarks and progress. */
export interface ResetReport {
  /** Paths compared by `lstat`: only the directories when the reset took what the walk that ended the copy's last use found. */
  readonly scanned: number;
  /** Paths whose content had to be read because their stamp changed. */
  readonly hashed: number;
  /** Paths written, created or removed to reach snapshot + candidate. */
  readonly restored: number;
}

/**
 * The file system's own clock right now, read from a marker next to the copy: a stamp at or after it
 * could be shared by a later write (timestamps advance by ticks, or by whole seconds on some file
 * systems), so such paths are compared by content at the next scan (git's "racily clean" rule).
 */
function settledMark(dir: string): number {
  const marker = `${dir}.settled`;
  writeFileSync(marker, '');
  const info = lstatSync(marker);
  return Math.min(info.mtimeMs, info.ctimeMs);
}

/**
 * Writes every entry of the snapshot into `dir` (removed first), returning the stamps of what it wrote. A
 * path found of another kind than it was written as (a folder or symlink swapped by a process racing the
 * write) fails it: a stamp kept for a copy always has the kind the copy should hold there.
 */
async function fill(dir: string, snapshot: Snapshot): Promise<Map<string, Stamp>> {
  await removeTree(dir);
  mkdirSync(path.dirname(dir), { recursive: true });
  // Directories are writable while they are filled, and get their own mode at the end.
  mkdirSync(dir, { mode: 0o700 });
  chmodSync(dir, snapshot.rootMode | 0o700);
  const umask = processUmask();
  const stamps = new Map<string, Stamp>();
  // Files are created on the writer's thread (a large one here) while this one reads and checks the next blobs.
  const writer = new CopyWriter({ umask, stamps });
  let handled = 0;
  try {
    // Sorted, a folder comes before what it holds: it exists before the writer creates a file in it.
    for (const file of [...snapshot.manifest.keys()].sort()) {
      const entry = snapshot.manifest.get(file) as ManifestEntry;
      const target = path.join(dir, file);
      if (entry.type === 'dir') {
        mkdirSync(target, { mode: entry.mode | 0o700 });
        if (((entry.mode | 0o700) & umask) !== 0) chmodSync(target, entry.mode | 0o700);
      } else if (entry.type === 'symlink') {
        symlinkSync(entry.target, target);
        stamps.set(file, writtenStamp(target, 'symlink'));
      } else {
        await writer.write({ target, file, bytes: snapshot.blob(entry.hash), mode: entry.mode });
      }
      handled += 1;
      if (handled % BATCH === 0) await yieldToLoop();
    }
    await writer.finish();
  } catch (error) {
    // The first failure is the one reported (a blob that no longer matches its hash, say), not the writer's.
    await writer.finish().catch(() => undefined);
    throw error;
  }
  settleWrittenFolders(dir, snapshot.manifest, snapshot.rootMode, stamps);
  return stamps;
}

/**
 * A directory redline keeps equal to snapshot + one candidate. It is written once (with the snapshot,
 * or from its blobs) and then reset incrementally: a reset compares every expected path's `lstat` stamp
 * with the one taken when it was last written, reads the content only where a stamp changed, lists only
 * directories whose stamp changed (to find created entries), and rewrites just what differs.
 */
export class WorkCopy {
  readonly dir: string;
  readonly #snapshot: Snapshot;
  /** Stamps of every expected path, taken right after redline wrote or checked it. */
  readonly #stamps: Map<string, Stamp>;
  /** What the current candidate puts on top of the snapshot: files (with text), implied directories, deletions (null). */
  #overlay = new Map<string, Wanted | null>();
  /** When the last reset ended: stamps taken just before it are compared by content (see RACY_MS). */
  #settledAt: number;

  /** Set when a reset failed halfway: the next one writes the copy afresh instead of trusting its stamps. */
  #broken = false;

  /**
   * What the next reset has to undo, while nothing can have run in the copy since it was found: set by the
   * walk that ends a use of the copy (`changes` after an agent, `changedInputs` after each check), and to
   * nothing when the copy was written or reset without being handed out (see {@link reset}); cleared when
   * the copy is handed out for use. A reset without it walks every path: the first one of a copy an earlier
   * run left ({@link resume}), and any after a use that no walk ended.
   */
  #known: Drift | undefined = NOTHING_TO_UNDO;

  /**
   * False from {@link resume} with the walk that ended the earlier run's last use until a walk compares
   * every expected path again: until then, a path changed between the runs (its stamp is no longer the one
   * taken) is found only by the walk after the copy's next use (see {@link verified}).
   */
  #verified = true;

  private constructor(dir: string, snapshot: Snapshot, stamps: Map<string, Stamp>) {
    this.dir = dir;
    this.#snapshot = snapshot;
    this.#stamps = stamps;
    this.#settledAt = settledMark(dir);
  }

  /** Adopts a copy that was written together with the snapshot (see `takeSnapshot`). */
  static adopt(dir: string, snapshot: Snapshot, stamps: Map<string, Stamp>): WorkCopy {
    return new WorkCopy(dir, snapshot, stamps);
  }

  /**
   * Takes over a copy an earlier run left (see `CacheEntry`): `stamps` and `settledAt` are what its last
   * reset took, and `holds` says, for each path where it should hold something other than `snapshot`,
   * what it should hold there (null: nothing). The next reset then rewrites those paths and, as always,
   * whatever was changed in the copy since its stamps were taken: found by a walk of every path, or, with
   * `known` (what the walk that ended the earlier run's last use of the copy found), by a look at its
   * folders only. Such a copy is not {@link verified} until a walk compares every path again.
   */
  static resume({
    dir,
    snapshot,
    stamps,
    settledAt,
    holds,
    known,
  }: {
    dir: string;
    snapshot: Snapshot;
    stamps: Map<string, Stamp>;
    settledAt: number;
    holds: Map<string, ManifestEntry | null>;
    known?: Drift | undefined;
  }): WorkCopy {
    // A copy of its own: a reset that fails clears them, and the caller may try again from the left ones.
    const copy = new WorkCopy(dir, snapshot, new Map(stamps));
    copy.#settledAt = settledAt;
    copy.#overlay = holds;
    // A stamp of another kind than the copy should hold there (a symlink's where a folder should be: a
    // state planted, or kept before such stamps were refused) is not trusted: that path counts as changed,
    // and every path is walked, since a look at the folders alone would pass over it.
    let foreign = false;
    for (const [file, stamp] of copy.#stamps) {
      if (stamp.kind === copy.#wanted(file)?.type) continue;
      copy.#stamps.set(file, NO_STAMP);
      foreign = true;
    }
    copy.#known = foreign ? undefined : known;
    copy.#verified = copy.#known === undefined;
    return copy;
  }

  /**
   * Whether every expected path was compared with its stamp since the copy was taken over: false after a
   * {@link resume} with the earlier run's last walk, until the next walk of every path (a reset with
   * `verify`, `changedInputs`, `changes`). A check run in a copy not verified sees any path
   * changed between the runs; the walk after it finds every such path (`changedInputs`), and a caller
   * that needs the check's result then runs it again.
   */
  get verified(): boolean {
    return this.#verified;
  }

  /**
   * Compares the expected paths `match` accepts with their stamps, as a walk of every path would, so that
   * the next reset also undoes what changed among them (a copy not {@link verified}: a check's declared
   * outputs, which no walk after it would judge). Nothing to do when the next reset walks every path anyway.
   */
  compareSome(match: (file: string) => boolean): void {
    const known = this.#known;
    if (known === undefined) return;
    const changed = new Set(known.changed);
    for (const [file, stamp] of this.#stamps) {
      if (file === '' || !match(file)) continue;
      const now = stampAt(pathIn(this.dir, file));
      if (
        now === undefined ||
        !sameStamp(now, stamp) ||
        (isRacy(stamp, this.#settledAt) && stamp.kind !== 'dir' && !this.#stillHolds(file))
      )
        changed.add(file);
    }
    this.#known = { changed, extra: known.extra };
  }

  /**
   * What a later run needs to take the copy over ({@link resume}): its stamps, when its last reset
   * settled, and what the current candidate puts on the snapshot (without the text); undefined when a
   * reset failed and the stamps cannot be trusted. `known` is what the walk that ended its last use found,
   * when nothing ran in it since (see {@link resume}).
   */
  state():
    { stamps: [string, Stamp][]; settledAt: number; overlay: [string, ManifestEntry | null][]; known: Drift | undefined } | undefined {
    if (this.#broken) return undefined;
    const overlay: [string, ManifestEntry | null][] = [];
    for (const [file, wanted] of this.#overlay) {
      if (wanted === null || wanted.type !== 'file') overlay.push([file, wanted]);
      else overlay.push([file, { type: 'file', mode: wanted.mode, size: wanted.size, hash: wanted.hash }]);
    }
    return { stamps: [...this.#stamps], settledAt: this.#settledAt, overlay, known: this.#known };
  }

  /** Writes a fresh copy of the snapshot from its blobs into `dir` (removed first if present). */
  static async materialize(dir: string, snapshot: Snapshot): Promise<WorkCopy> {
    return new WorkCopy(dir, snapshot, await fill(dir, snapshot));
  }

  /** What the copy should hold at `file` now ('' is the root), or undefined when nothing. */
  #wanted(file: string): Wanted | undefined {
    if (file === '') return { type: 'dir', mode: this.#snapshot.rootMode };
    const overlaid = this.#overlay.get(file);
    if (overlaid !== undefined) return overlaid ?? undefined;
    return this.#snapshot.manifest.get(file);
  }

  /** Whether the file at `target` holds exactly what `wanted` says (content and mode). */
  #holds(target: string, wanted: Wanted): boolean {
    if (wanted.type !== 'file') return false;
    let bytes: Buffer;
    try {
      bytes = readNoFollow(target);
    } catch {
      return false;
    }
    return bytes.length === wanted.size && contentHash(bytes) === wanted.hash;
  }

  /**
   * Finds where the copy differs from what it should hold. Unchanged stamps are trusted, except for paths
   * stamped just before the last reset ended (compared by content); a changed stamp with the same content
   * and mode is only re-stamped.
   */
  async scan({ dirsOnly = false }: { dirsOnly?: boolean } = {}): Promise<Drift & { readonly scanned: number; readonly hashed: number }> {
    const changed = new Set<string>();
    const extra = new Set<string>();
    let scanned = 0;
    let hashed = 0;
    const listDir = (file: string): void => {
      let names: string[];
      try {
        names = readdirSync(path.join(this.dir, file));
      } catch {
        return;
      }
      for (const name of names) {
        const child = file === '' ? name : `${file}/${name}`;
        if (this.#wanted(child) === undefined) extra.add(child);
      }
    };
    // Which stamps are unchanged, found on two threads for a large copy walked in full: only the others are stamped here.
    const unchanged = dirsOnly ? undefined : await unchangedAt(this.dir, this.#stamps);
    let index = -1;
    for (const [file, stamp] of this.#stamps) {
      index += 1;
      // A path stamped in the clock tick the copy was settled in could be rewritten without its stamp
      // changing: compared by content even when only the folders are looked at.
      if (dirsOnly && stamp.kind !== 'dir' && !isRacy(stamp, this.#settledAt)) continue;
      scanned += 1;
      if (scanned % (BATCH * 8) === 0) await yieldToLoop();
      const target = pathIn(this.dir, file);
      const now = sweptUnchanged(unchanged, index, file, stamp) ? stamp : stampAt(target);
      if (now === undefined) {
        changed.add(file);
        continue;
      }
      if (sameStamp(now, stamp) && !isRacy(stamp, this.#settledAt)) continue;
      const wanted = this.#wanted(file) as Wanted;
      if (now.kind !== stamp.kind) {
        changed.add(file);
        continue;
      }
      if (now.kind === 'dir') {
        listDir(file);
        if (now.mode !== stamp.mode) changed.add(file);
        else this.#stamps.set(file, now);
      } else if (now.kind === 'file') {
        // A hard link may lead outside the copy: redline's own files have exactly one name.
        if (lstatOrNothing(target)?.nlink !== 1) {
          changed.add(file);
          continue;
        }
        hashed += 1;
        if (now.mode === (wanted.type === 'file' ? wanted.mode : -1) && this.#holds(target, wanted)) this.#stamps.set(file, now);
        else changed.add(file);
      } else if (now.kind === 'symlink') {
        if (wanted.type === 'symlink' && readlinkSync(target) === wanted.target) this.#stamps.set(file, now);
        else changed.add(file);
      } else changed.add(file);
    }
    if (!dirsOnly) this.#verified = true;
    return { changed, extra, scanned, hashed };
  }

  /**
   * The expected paths (snapshot + candidate) that changed since the last reset, except those `isOutput`
   * accepts, in path order (see `inputChanges`): what a check that ran in the copy may have seen instead
   * of snapshot + candidate. Only reads: the next reset still finds and undoes every change.
   */
  async changedInputs(isOutput: (file: string) => boolean): Promise<string[]> {
    this.#known = undefined;
    const { changed, drift } = await inputChanges({
      dir: this.dir,
      stamps: this.#stamps,
      settledAt: this.#settledAt,
      isOutput,
      holds: (file) => this.#stillHolds(file),
      expected: (file) => this.#wanted(file) !== undefined,
    });
    this.#known = drift;
    this.#verified = true;
    return changed;
  }

  /** Whether `file` holds what it should, as the scan compares it: a single-named file's content and mode, a symlink's target. */
  #stillHolds(file: string): boolean {
    const wanted = this.#wanted(file);
    const target = pathIn(this.dir, file);
    const info = lstatOrNothing(target);
    if (wanted === undefined || info === undefined) return false;
    if (wanted.type === 'symlink') return info.isSymbolicLink() && readlinkSync(target) === wanted.target;
    return info.isFile() && info.nlink === 1 && (info.mode & 0o7777) === wanted.mode && this.#holds(target, wanted);
  }

  /**
   * What the reset has to undo. The walk that ended the copy's last use (`#known`) is taken when there is
   * one, its directories looked at again: anything run in the copy since (a check cut short, a process
   * left behind) either created an entry, which changes its directory, and is found here, or changed an
   * expected path, which the walk after the next use finds (its stamp stays the one taken before).
   */
  async #drift(): Promise<Drift & { readonly scanned: number; readonly hashed: number }> {
    const known = this.#known;
    this.#known = undefined;
    if (known === undefined) return this.scan();
    const dirs = await this.scan({ dirsOnly: true });
    return {
      changed: new Set([...known.changed, ...dirs.changed]),
      extra: new Set([...known.extra, ...dirs.extra]),
      scanned: dirs.scanned,
      hashed: 0,
    };
  }

  /** Stamps `dir` once it holds only entries the copy should hold there, removing any other. */
  #settleDir(dir: string): void {
    const stamp = settledFolderStamp(this.dir, dir, (child) => this.#wanted(child) !== undefined);
    if (stamp !== undefined) this.#stamps.set(dir, stamp);
  }

  /** Every expected path strictly below `dir`. */
  #below(dir: string): string[] {
    const prefix = dir === '' ? '' : `${dir}/`;
    return [...this.#stamps.keys()].filter((file) => file !== dir && file.startsWith(prefix));
  }

  /** The overlay a candidate puts on the snapshot: its files, the directories they need, its deletions. */
  #overlayOf(files: CandidateFiles): Map<string, Wanted | null> {
    const overlay = new Map<string, Wanted | null>();
    for (const [file, content] of Object.entries(files)) {
      if (content === null) {
        overlay.set(file, null);
        continue;
      }
      const before = this.#snapshot.manifest.get(file);
      const size = Buffer.byteLength(content, 'utf8');
      overlay.set(file, {
        type: 'file',
        mode: before?.type === 'file' ? before.mode : 0o644,
        size,
        hash: contentHash(content),
        text: content,
      });
    }
    // The directories new files need: missing from the snapshot, or a snapshot file the candidate deletes.
    for (const [file, wanted] of [...overlay]) {
      if (wanted === null) continue;
      const parts = file.split('/');
      for (let end = 1; end < parts.length; end += 1) {
        const ancestor = parts.slice(0, end).join('/');
        if (this.#snapshot.manifest.get(ancestor)?.type !== 'dir' && overlay.get(ancestor)?.type !== 'dir')
          overlay.set(ancestor, { type: 'dir', mode: 0o755 });
      }
    }
    return overlay;
  }

  /** Writes what should be at `file` (or removes what should not), never through a symlink. */
  #restore(file: string): void {
    const wanted = this.#wanted(file);
    if (wanted === undefined) {
      removeInside(this.dir, file, { onObstacle: 'replace' });
      return;
    }
    if (wanted.type === 'dir') mkdirInside(this.dir, file, wanted.mode);
    else if (wanted.type === 'symlink') symlinkInside(this.dir, file, wanted.target);
    else
      writeInside(this.dir, file, 'text' in wanted ? wanted.text : this.#snapshot.blob(wanted.hash), {
        mode: wanted.mode,
        onObstacle: 'replace',
      });
  }

  /**
   * Brings the copy to exactly snapshot + `files`: undoes whatever was done to it since the last reset
   * (by checks, by an agent) and swaps the previous candidate's files for these. `handOut: false` says
   * the copy is not used before the next reset, which then need not walk it again (a run's start readies
   * the copy an earlier run left before the first check set resets it for use). `verify` makes a copy not
   * {@link verified} walked in full now, instead of by a look at its folders.
   */
  async reset(
    files: CandidateFiles,
    { handOut = true, verify = false }: { handOut?: boolean; verify?: boolean } = {},
  ): Promise<ResetReport> {
    if (verify && !this.#verified) this.#known = undefined;
    if (this.#broken) {
      // The stamps cannot be trusted after a failed reset: the copy is written afresh.
      this.#known = undefined;
      this.#stamps.clear();
      for (const [file, stamp] of await fill(this.dir, this.#snapshot)) this.#stamps.set(file, stamp);
      this.#overlay = new Map();
      this.#broken = false;
      this.#verified = true;
    }
    try {
      const report = await this.#resetFrom(files);
      // Handed out, the copy is used (checks, an agent): only the walk that ends that use says what to undo.
      this.#known = handOut ? undefined : NOTHING_TO_UNDO;
      return report;
    } catch (error) {
      this.#broken = true;
      throw error;
    }
  }

  async #resetFrom(files: CandidateFiles): Promise<ResetReport> {
    const drift = await this.#drift();
    const previous = this.#overlay;
    this.#overlay = this.#overlayOf(files);
    const targets = new Set<string>([...drift.changed, ...drift.extra, ...previous.keys(), ...this.#overlay.keys()]);
    // A directory that is gone or was replaced (by a file, or a symlink to a look-alike) gets all its content
    // back; one that is a directory already keeps only what it should hold (it may be new: made by a check
    // where a file was, or where the candidate now wants one).
    for (const file of [...targets]) {
      if (this.#wanted(file)?.type !== 'dir') continue;
      const info = lstatOrNothing(path.join(this.dir, file));
      if (info === undefined || !info.isDirectory()) for (const below of this.#below(file)) targets.add(below);
      else
        for (const name of readdirSync(path.join(this.dir, file))) {
          const child = file === '' ? name : `${file}/${name}`;
          if (this.#wanted(child) === undefined) targets.add(child);
        }
    }
    const ordered = [...targets].sort();
    const touchedDirs = new Set<string>();
    for (const file of ordered) {
      this.#restore(file);
      const wanted = this.#wanted(file);
      if (wanted === undefined) {
        // Only a path redline expected before has a stamp (and, for a directory, stamped content).
        if (this.#stamps.get(file)?.kind === 'dir') for (const below of this.#below(file)) this.#stamps.delete(below);
        this.#stamps.delete(file);
      } else {
        this.#stamps.set(file, writtenStamp(path.join(this.dir, file), wanted.type));
      }
      for (let at = parentOf(file); !touchedDirs.has(at); at = parentOf(at)) {
        touchedDirs.add(at);
        if (at === '') break;
      }
    }
    // Creating and removing entries changes their directories' times: each is stamped again, after it was
    // listed and found to hold only what it should (an entry created since the walk is removed, not hidden).
    for (const dir of touchedDirs) if (this.#wanted(dir) !== undefined) this.#settleDir(dir);
    this.#settledAt = settledMark(this.dir);
    return { scanned: drift.scanned, hashed: drift.hashed, restored: ordered.length };
  }

  /**
   * What was done to the copy since its last reset, as candidate files on top of the current ones:
   * changed and created files with their text, deleted files as `null`. Paths the snapshot ignores are
   * left out. Throws a TypeError when something cannot be a candidate (a symlink was created, a file is
   * not UTF-8), a RangeError when the changed files hold more than `maxBytes` (nothing more is read).
   */
  async changes({ maxBytes = Number.POSITIVE_INFINITY }: { maxBytes?: number } = {}): Promise<Record<string, string | null>> {
    this.#known = undefined;
    const drift = await this.scan();
    this.#known = drift;
    // A map: a file named like an Object member (`__proto__`) is a key like any other.
    const files = new Map<string, string | null>();
    const ignored = this.#snapshot.ignored;
    let bytesLeft = maxBytes;
    const readText = (file: string, size: number): void => {
      bytesLeft -= size;
      if (bytesLeft < 0) throw new RangeError(`the changed files hold more than ${maxBytes} bytes (at ${file})`);
      const bytes = readNoFollow(path.join(this.dir, file));
      const text = bytes.toString('utf8');
      if (!Buffer.from(text, 'utf8').equals(bytes)) throw new TypeError(`${file} is not UTF-8 text; a candidate holds text files only`);
      files.set(file, text);
    };
    const take = (file: string): void => {
      if (ignored(file)) return;
      const info = lstatOrNothing(path.join(this.dir, file));
      if (info === undefined) return;
      if (info.isSymbolicLink())
        throw new TypeError(
          `${file} is a symlink to ${JSON.stringify(readlinkSync(path.join(this.dir, file)))}; a candidate holds files only`,
        );
      if (info.isFile()) readText(file, info.size);
      else if (info.isDirectory()) for (const name of readdirSync(path.join(this.dir, file)).sort()) take(`${file}/${name}`);
    };
    for (const file of [...drift.changed].sort()) {
      const wanted = this.#wanted(file);
      const info = lstatOrNothing(path.join(this.dir, file));
      if (wanted?.type === 'file' && (info === undefined || !info.isFile())) files.set(file, null);
      if (wanted?.type === 'symlink') throw new TypeError(`the symlink ${file} was changed or removed; a candidate holds files only`);
      if (info !== undefined && !(info.isDirectory() && wanted?.type === 'dir')) take(file);
    }
    for (const file of [...drift.extra].sort()) take(file);
    // Own properties throughout (`__proto__` included), which proposal validation then refuses by name.
    return Object.fromEntries(files);
  }
}
