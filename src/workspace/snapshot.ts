import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  symlinkSync,
  writeFileSync,
  writeSync,
  lstatSync,
  type Dirent,
  type Stats,
} from 'node:fs';
import { WorkspaceUnreadableError } from '../errors/workspace-unreadable-error.js';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { BlobPack, type BlobSlot } from './blob-pack.js';
import { pathIn } from './path-in.js';
import {
  manifestColumns,
  manifestFrom,
  slotColumns,
  slotsFrom,
  stampColumns,
  stampsFrom,
  type ManifestColumns,
  type SlotColumns,
  type StampColumns,
} from './state-columns.js';
import { CopyWriter } from './copy-writer.js';
import { readStateFile, STATE_VERSION, writeStateFile } from './state-file.js';
import { FileCloner } from './file-cloner.js';
import { settleWrittenFolders } from './settled-folder.js';
import type { IgnoreRule } from './ignore.js';
import { contentHash, manifestHash, type Manifest, type ManifestEntry } from './manifest.js';
import { isRacy, processUmask, sameStamp, stampAt, stampOf, writtenStamp, type Stamp } from './stamp.js';
import { sweptLookup, unchangedAt } from './stamp-sweep.js';

/** Entries handled between two turns of the event loop, so that timers and other runs go on meanwhile. */
const BATCH = 256;
const CHUNK = 1 << 20;

/** The baseline of a run: the manifest of the workspace when the run started and the bytes it named. */
export interface Snapshot {
  /** The workspace directory it was taken from. */
  readonly workspace: string;
  readonly manifest: Manifest;
  /** {@link manifestHash} of the manifest: recorded in `run.started`. */
  readonly hash: string;
  readonly ignored: IgnoreRule;
  /** The permission bits of the workspace directory itself (the manifest lists what is below it). */
  readonly rootMode: number;
  /** The bytes a snapshot file held. */
  blob(hash: string): Buffer;
  /** The text of a snapshot file, or null when the snapshot has no file there. */
  text(file: string): string | null;
  /** What `lstat` said of each path of the live workspace when it was read (to find later changes cheaply). */
  readonly live: ReadonlyMap<string, Stamp>;
  /**
   * The file system's clock when the walk that took `live` began: a stamp at or after it could be shared
   * by a change right after it was taken. Unknown (undefined) for a snapshot read back from a run directory,
   * and when that clock was read on another file system than the workspace's.
   */
  readonly startedAt?: number | undefined;
}

/** What taking a snapshot produced besides the snapshot: the first copy, with the stamps of its paths. */
export interface TakenSnapshot {
  readonly snapshot: Snapshot & { readonly pack: BlobPack };
  /** Stamps of the copy written alongside, by path ('' is its root); empty when no copy was written. */
  readonly copyStamps: Map<string, Stamp>;
  /** Files whose bytes were read and hashed (the others were known from the previous snapshot). */
  readonly hashed: number;
  /** Folders read with `readdir` (the others were known, unchanged, from the previous snapshot). */
  readonly listed: number;
  /** The file system's clock when the walk began: a later snapshot re-reads files stamped at or after it. */
  readonly startedAt: number;
  /** Large files of the copy cloned (sharing the workspace file's blocks) instead of written. */
  readonly cloned: number;
}

/**
 * The snapshot a new one is taken against: a file whose `lstat` stamp is what it was then, and was not
 * stamped while that snapshot was being taken, keeps its entry without being read (its bytes are in
 * the pack already, which must be the pack the new snapshot writes to).
 */
export interface PreviousSnapshot {
  readonly manifest: Manifest;
  readonly live: ReadonlyMap<string, Stamp>;
  /** {@link TakenSnapshot.startedAt} of that snapshot. */
  readonly startedAt: number;
  /**
   * What it left out, as a key of the ignore rule it was taken with: with the same key, a folder whose stamp
   * is what it was then holds exactly the entries it held then, and is not listed again.
   */
  readonly ignore?: string;
}

class PackedSnapshot implements Snapshot {
  readonly workspace: string;
  readonly manifest: Manifest;
  readonly hash: string;
  readonly ignored: IgnoreRule;
  readonly rootMode: number;
  readonly live: ReadonlyMap<string, Stamp>;
  readonly startedAt: number | undefined;
  readonly pack: BlobPack;

  constructor(fields: {
    workspace: string;
    manifest: Manifest;
    ignored: IgnoreRule;
    rootMode: number;
    live: ReadonlyMap<string, Stamp>;
    startedAt?: number;
    pack: BlobPack;
    hash?: string;
  }) {
    this.startedAt = fields.startedAt;
    this.workspace = fields.workspace;
    this.rootMode = fields.rootMode;
    this.manifest = fields.manifest;
    this.hash = fields.hash ?? manifestHash(fields.manifest);
    this.ignored = fields.ignored;
    this.live = fields.live;
    this.pack = fields.pack;
  }

  /** Checked against its hash on every read: a damaged pack never reaches a copy. */
  blob(hash: string): Buffer {
    const bytes = this.pack.read(hash);
    if (contentHash(bytes) !== hash)
      throw new Error(`the snapshot's pack ${this.pack.file} is damaged: blob ${hash.slice(0, 12)}… does not match its content`);
    return bytes;
  }

  text(file: string): string | null {
    const entry = this.manifest.get(file);
    return entry?.type === 'file' ? this.blob(entry.hash).toString('utf8') : null;
  }
}

/**
 * Reads one regular file into the pack, hashing it on the way (one read for a file that fits the
 * buffer). A small file's bytes are handed back for the copy (`small`, valid until the buffer's next
 * use); a large one is written to `copy` here, chunk by chunk. Undefined when the file is gone (or was
 * swapped for a symlink) since its directory was read; the error code when it cannot be read.
 */
function captureFile(
  source: string,
  copy: string | undefined,
  pack: BlobPack,
  buffer: Buffer,
  umask: number,
  cloning?: { cloner: FileCloner; startedAt: number },
):
  | { entry: Extract<ManifestEntry, { type: 'file' }>; live: Stamp; copied?: Stamp; small?: Buffer; packOffset?: number }
  | { unreadable: string }
  | undefined {
  let input: number;
  try {
    // O_NOFOLLOW: a file swapped for a symlink since the directory was read is not followed.
    input = openSync(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
    return code === 'ENOENT' || code === 'ELOOP' ? undefined : { unreadable: code };
  }
  try {
    const info = fstatSync(input);
    if (!info.isFile()) return undefined;
    const mode = info.mode & 0o7777;
    // A large file's copy is cloned where the file system can, before a byte is read: a write after the
    // clone (a store through a mapping included, once the clone has written the file's pages out) changes
    // the file's stamp, which confirmedClone compares when the read is done. A stamp taken while the walk
    // was under way could be shared by a later write: such a file is written.
    const cloned =
      copy !== undefined &&
      info.size >= buffer.length &&
      cloning?.cloner.usable === true &&
      !isRacy(stampOf(info), cloning.startedAt) &&
      cloning.cloner.clone(input, copy);
    // Asking for a byte more than fstat said finds the end of a file that fits without another read.
    const first = readSync(input, buffer, 0, Math.min(buffer.length, info.size + 1), null);
    if (first <= info.size && first < buffer.length) {
      // Shrunk since fstat: written like any small file.
      if (cloned) cloning?.cloner.discard(copy as string);
      const bytes = buffer.subarray(0, first);
      const hash = contentHash(bytes);
      const entry = { type: 'file' as const, mode, size: first, hash };
      if (copy === undefined) {
        pack.append(buffer, first);
        pack.commit(hash);
        return { entry, live: stampOf(info) };
      }
      // The copy writer puts the bytes in the copy and, when they are new, in the reserved place of the pack.
      const packOffset = pack.reserve(hash, first);
      return { entry, live: stampOf(info), small: bytes, ...(packOffset === undefined ? {} : { packOffset }) };
    }
    const output =
      copy === undefined || cloned ? undefined : openSync(copy, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
    try {
      if (output !== undefined && (mode & umask) !== 0) fchmodSync(output, mode);
      const digest = createHash('sha256');
      let size = 0;
      for (let n = first; n > 0; n = readSync(input, buffer, 0, buffer.length, null)) {
        digest.update(buffer.subarray(0, n));
        pack.append(buffer, n);
        if (output !== undefined) for (let done = 0; done < n;) done += writeSync(output, buffer, done, n - done);
        size += n;
      }
      const hash = digest.digest('hex');
      pack.commit(hash);
      const entry = { type: 'file' as const, mode, size, hash };
      if (cloned && copy !== undefined && cloning !== undefined)
        return { entry, live: stampOf(info), copied: confirmedClone(input, info, copy, entry, pack, cloning.cloner) };
      return { entry, live: stampOf(info), ...(output === undefined ? {} : { copied: stampOf(fstatSync(output)) }) };
    } finally {
      if (output !== undefined) closeSync(output);
    }
  } finally {
    closeSync(input);
  }
}

/**
 * The stamp of a cloned copy once it is known to hold exactly what was read and hashed: the file's stamp
 * is the one it had before the clone (nothing wrote it from then to the end of the read), and the clone
 * has the size and mode that were read. Otherwise the clone is discarded and the copy written from the
 * bytes the pack now holds.
 */
export function confirmedClone(
  input: number,
  before: Stats,
  copy: string,
  entry: Extract<ManifestEntry, { type: 'file' }>,
  pack: BlobPack,
  cloner: FileCloner,
): Stamp {
  const clone = lstatSync(copy);
  if (
    sameStamp(stampOf(fstatSync(input)), stampOf(before)) &&
    clone.isFile() &&
    clone.size === entry.size &&
    (clone.mode & 0o7777) === entry.mode
  )
    return stampOf(clone);
  cloner.discard(copy);
  const output = openSync(copy, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, entry.mode);
  try {
    fchmodSync(output, entry.mode);
    for (const bytes of pack.chunks(entry.hash, CHUNK))
      for (let done = 0; done < bytes.length;) done += writeSync(output, bytes, done, bytes.length - done);
    return stampOf(fstatSync(output));
  } finally {
    closeSync(output);
  }
}

/**
 * A folder's entry as the walk needs it: its name and what it is, and, for an entry of a folder known
 * unchanged, its path as the previous snapshot names it (the same string, so looking it up costs no
 * new hashing; such a path was not ignored by the same rule then, and is not now).
 */
interface Listed {
  readonly name: string;
  readonly kind: 'file' | 'dir' | 'symlink' | 'other';
  readonly file?: string;
}

function listed(item: Dirent): Listed {
  const kind = item.isDirectory() ? 'dir' : item.isSymbolicLink() ? 'symlink' : item.isFile() ? 'file' : 'other';
  return { name: item.name, kind };
}

/** The entries of each folder of a previous snapshot ('' is the workspace), as the walk lists them. */
function heldEntries(previous: PreviousSnapshot): Map<string, Listed[]> {
  const held = new Map<string, Listed[]>();
  for (const [file, entry] of previous.manifest) {
    const slash = file.lastIndexOf('/');
    const dir = slash === -1 ? '' : file.slice(0, slash);
    let entries = held.get(dir);
    if (entries === undefined) held.set(dir, (entries = []));
    entries.push({ name: slash === -1 ? file : file.slice(slash + 1), kind: entry.type, file });
  }
  return held;
}

/**
 * Records the workspace as a content-addressed manifest and stores its bytes in a blob pack under
 * `runDir`, in one pass that also writes the run's first isolated copy (`copyDir`, which must not exist).
 * Ignored paths are left out; sockets, FIFOs and devices are left out too.
 */
export async function takeSnapshot({
  workspace,
  ignored,
  runDir,
  copyDir,
  pack: given,
  previous,
  ignoreKey,
  clock,
}: {
  workspace: string;
  ignored: IgnoreRule;
  /** A key of `ignored` (see `PreviousSnapshot.ignore`): without it every folder is listed. */
  ignoreKey?: string;
  /** Where the pack (`blobs.pack`) is created, unless `pack` is given. */
  runDir: string;
  copyDir?: string;
  /** A pack to add the bytes to (a cached one), instead of a new one in `runDir`. */
  pack?: BlobPack;
  /** See {@link PreviousSnapshot}: only with the `pack` that holds its bytes, and without `copyDir`. */
  previous?: PreviousSnapshot;
  /** A file whose times are set to read the file system's clock (see `startedAt`): `<runDir>/clock` unless given. */
  clock?: string;
}): Promise<TakenSnapshot> {
  if (previous !== undefined && (given === undefined || copyDir !== undefined))
    throw new TypeError('Expected a previous snapshot with its pack and no copy to write, got another combination');
  const manifest = new Map<string, ManifestEntry>();
  const live = new Map<string, Stamp>();
  const copyStamps = new Map<string, Stamp>();
  const pack = given ?? BlobPack.create(path.join(runDir, 'blobs.pack'));
  const buffer = Buffer.allocUnsafe(CHUNK);
  const dirs: string[] = [''];
  const startedAt = fileSystemClock(clock ?? path.join(runDir, 'clock'));
  let hashed = 0;
  const rootInfo = lstatSync(workspace);
  const rootMode = rootInfo.mode & 0o7777;
  /** The root's stamp: taken again when the walk lists it. */
  let rootStamp = stampOf(rootInfo);
  // Folder times are trusted against the clock only when it is read on the workspace's own file system:
  // another one may keep coarser times (whole seconds), or another clock.
  const clockHere = lstatSync(clock ?? path.join(runDir, 'clock')).dev === rootInfo.dev;
  const umask = processUmask();
  // Directories are made writable to be filled and get their own mode once full (see below); a mode
  // the umask would strip is set explicitly, so the copy has exactly the snapshot's modes.
  const makeDir = (dir: string, mode: number): void => {
    mkdirSync(dir, { mode: mode | 0o700 });
    if (((mode | 0o700) & umask) !== 0) chmodSync(dir, mode | 0o700);
  };
  if (copyDir !== undefined) makeDir(copyDir, rootMode);
  const unreadable: string[] = [];
  // Large files of the copy are cloned where the file system can (see FileCloner).
  // The walk's start is a time on the workspace's own clock only when read on its file system (see clockHere).
  const cloning = copyDir === undefined || !clockHere ? undefined : { cloner: new FileCloner(copyDir), startedAt };
  // Small files of the copy are created on a second thread while this one reads, hashes and packs.
  const writer = copyDir === undefined ? undefined : new CopyWriter({ umask, pack: pack.file, stamps: copyStamps });
  // A folder whose stamp is what it was at the previous snapshot (taken with the same ignore rule) holds
  // what it held then: creating, removing or renaming an entry changes its folder's times.
  const held =
    clockHere && previous !== undefined && ignoreKey !== undefined && previous.ignore === ignoreKey ? heldEntries(previous) : undefined;
  // Which files still have the previous snapshot's stamps, found on two threads for a large workspace: the
  // walk stamps only the others itself. Folders are always stamped by the walk: when it meets them, when
  // it lists them and once their files are read, so that nothing listed or read through a folder found
  // replaced meanwhile is taken.
  const swept = sweptLookup(previous === undefined ? undefined : await unchangedAt(workspace, previous.live));
  /** The stamp of file `file` now: the previous one when the sweep found it unchanged. */
  const fileStampNow = (file: string, source: string): Stamp | undefined => {
    const before = previous?.live.get(file);
    return before !== undefined && swept(file, before) ? before : stampAt(source);
  };
  let listedFolders = 0;
  const changedMeanwhile = (dir: string): WorkspaceUnreadableError =>
    new WorkspaceUnreadableError(workspace, [`${dir === '' ? '.' : dir} (changed while the snapshot was taken)`]);
  /** The stamp `dir` was listed with ('' is the workspace; until then, the one it was met with). */
  const listedStamp = (dir: string): Stamp | undefined => (dir === '' ? rootStamp : live.get(dir));
  /** Whether folder `dir` is still the very folder it was listed as (a path through it leads where it did). */
  const stillListed = (dir: string): boolean => {
    const now = stampAt(pathIn(workspace, dir));
    return now?.kind === 'dir' && now.ino === listedStamp(dir)?.ino;
  };
  /** Whether every folder above `dir` is still the one listed. */
  const ancestorsAsListed = (dir: string): boolean => {
    for (let slash = dir.indexOf('/'); slash !== -1; slash = dir.indexOf('/', slash + 1))
      if (!stillListed(dir.slice(0, slash))) return false;
    return stillListed('');
  };
  const listing = (dir: string): readonly Listed[] => {
    const before = previous?.live.get(dir);
    // Stamped again now (the root included, met before the sweep): a folder replaced since it was met by
    // anything but a folder is never listed through, and fails the snapshot; one replaced by another
    // folder is listed as it is now, when every folder above it is still the one listed.
    const met = listedStamp(dir);
    const now = stampAt(pathIn(workspace, dir));
    if (now?.kind !== 'dir') throw changedMeanwhile(dir);
    if (now.ino !== met?.ino) {
      if (dir === '' || !ancestorsAsListed(dir)) throw changedMeanwhile(dir);
      manifest.set(dir, { type: 'dir', mode: now.mode });
    }
    if (dir === '') rootStamp = now;
    else live.set(dir, now);
    if (held !== undefined && before !== undefined && sameStamp(now, before) && !isRacy(before, previous?.startedAt ?? 0))
      return held.get(dir) ?? [];
    listedFolders += 1;
    return readdirSync(pathIn(workspace, dir), { withFileTypes: true }).map(listed);
  };
  let handled = 0;
  try {
    for (let next = dirs.pop(); next !== undefined; next = dirs.pop()) {
      const dir = next;
      for (const item of listing(dir)) {
        const file = item.file ?? (dir === '' ? item.name : `${dir}/${item.name}`);
        if (item.file === undefined && ignored(file)) continue;
        const source = pathIn(workspace, file);
        const copy = copyDir === undefined ? undefined : pathIn(copyDir, file);
        if (item.kind === 'dir') {
          const stamp = stampAt(source);
          // Replaced since it was listed (by a symlink, to anywhere), or gone: never listed through; the snapshot fails, naming it.
          if (stamp?.kind !== 'dir') throw new WorkspaceUnreadableError(workspace, [`${file} (changed while the snapshot was taken)`]);
          const { mode } = stamp;
          manifest.set(file, { type: 'dir', mode });
          live.set(file, stamp);
          if (copy !== undefined) makeDir(copy, mode);
          dirs.push(file);
        } else if (item.kind === 'symlink') {
          const target = readlinkSync(source);
          manifest.set(file, { type: 'symlink', target });
          live.set(file, stampOf(lstatSync(source)));
          if (copy !== undefined) {
            symlinkSync(target, copy);
            copyStamps.set(file, writtenStamp(copy, 'symlink'));
          }
        } else if (item.kind === 'file') {
          const known = previous === undefined ? undefined : unchanged(file, previous, pack, () => fileStampNow(file, source));
          if (known !== undefined) {
            manifest.set(file, known.entry);
            live.set(file, known.live);
            handled += 1;
            if (handled % BATCH === 0) await yieldToLoop();
            continue;
          }
          hashed += 1;
          const captured = captureFile(source, copy, pack, buffer, umask, cloning);
          if (captured === undefined) continue;
          if ('unreadable' in captured) {
            unreadable.push(`${file} (${captured.unreadable})`);
            continue;
          }
          manifest.set(file, captured.entry);
          live.set(file, captured.live);
          if (captured.copied !== undefined) copyStamps.set(file, captured.copied);
          if (captured.small !== undefined && writer !== undefined && copy !== undefined) {
            await writer.write({
              target: copy,
              file,
              bytes: captured.small,
              mode: captured.entry.mode,
              ...(captured.packOffset === undefined ? {} : { packOffset: captured.packOffset }),
            });
          }
        }
        handled += 1;
        if (handled % BATCH === 0) await yieldToLoop();
      }
      // Its files were read by path: had the folder been replaced meanwhile (by a symlink, to anywhere),
      // what was read may not be the workspace's. Then the snapshot fails, naming it.
      if (!stillListed(dir)) throw changedMeanwhile(dir);
    }
    await writer?.finish();
    if (unreadable.length > 0) throw new WorkspaceUnreadableError(workspace, unreadable);
    // Directory times change while entries are created in them: moded and stamped once everything is written.
    if (copyDir !== undefined) settleWrittenFolders(copyDir, manifest, rootMode, copyStamps);
    live.set('', rootStamp);
  } catch (error) {
    await writer?.finish().catch(() => undefined);
    pack.close();
    throw error;
  }
  return {
    snapshot: new PackedSnapshot({ workspace, manifest, ignored, rootMode, live, ...(clockHere ? { startedAt } : {}), pack }),
    copyStamps,
    hashed,
    listed: listedFolders,
    startedAt,
    cloned: cloning?.cloner.cloned ?? 0,
  };
}

/** The file system's own clock now, read from the times of `marker` (written for it). */
export function fileSystemClock(marker: string): number {
  writeFileSync(marker, '');
  const info = lstatSync(marker);
  return Math.min(info.mtimeMs, info.ctimeMs);
}

/**
 * The previous snapshot's entry of a file whose stamp has not changed since (and was not taken while that
 * snapshot was under way, when a write in the same clock tick could leave it equal), with its bytes in
 * the pack; undefined when the file must be read.
 */
function unchanged(
  file: string,
  previous: PreviousSnapshot,
  pack: BlobPack,
  stampNow: () => Stamp | undefined,
): { entry: Extract<ManifestEntry, { type: 'file' }>; live: Stamp } | undefined {
  const before = previous.live.get(file);
  const entry = previous.manifest.get(file);
  if (before === undefined || entry?.type !== 'file' || isRacy(before, previous.startedAt) || !pack.has(entry.hash)) return undefined;
  const now = stampNow();
  return now !== undefined && sameStamp(now, before) ? { entry, live: now } : undefined;
}

/** The name of a run directory's saved snapshot (a cache entry's, linked there, is named the same). */
export const SNAPSHOT_FILE = 'snapshot.state';

/** What `snapshot.state` holds, its maps stored as columns (a cache entry's file, linked into a run directory, holds more). */
interface StoredSnapshot {
  readonly version: typeof STATE_VERSION;
  readonly workspace: string;
  readonly hash: string;
  readonly rootMode: number;
  readonly entries: ManifestColumns;
  readonly blobs: SlotColumns;
  readonly live: StampColumns;
  /** The pack's file, when it is not the one beside this file (a cached snapshot's). */
  readonly pack?: string;
}

/** Writes what {@link loadSnapshot} needs to rebuild a snapshot (for a resumed run). */
export function saveSnapshot(snapshot: Snapshot & { readonly pack: BlobPack }, file: string): void {
  const stored: StoredSnapshot = {
    ...storedSnapshot(snapshot),
    ...(path.dirname(snapshot.pack.file) === path.dirname(file) ? {} : { pack: snapshot.pack.file }),
  };
  snapshot.pack.sync();
  // Whole or absent: a process killed while writing it leaves no half file for recovery to trust.
  writeStateFile(file, stored);
}

/**
 * A snapshot saved by {@link saveSnapshot}, checked against the hash the run recorded: undefined (with
 * why) when it is missing, unreadable (damaged, or written by another version), or not the recorded one.
 */
export function loadSnapshot(
  file: string,
  packFile: string,
  expectedHash: string,
  ignored: IgnoreRule,
): { snapshot: Snapshot & { readonly pack: BlobPack } } | { missing: string } {
  let stored: unknown;
  try {
    stored = readStateFile(file);
  } catch (error) {
    return { missing: `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  const read = readStoredSnapshot(stored);
  if (typeof read === 'string') return { missing: `${file} cannot be read (${read})` };
  if (manifestHash(read.manifest) !== expectedHash) return { missing: `${file} is not the snapshot the run recorded` };
  const packPath = read.pack ?? packFile;
  let pack: BlobPack;
  try {
    pack = BlobPack.open(packPath, read.slots);
  } catch (error) {
    return { missing: `${packPath} cannot be opened (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  return {
    snapshot: new PackedSnapshot({
      workspace: read.workspace,
      manifest: read.manifest,
      ignored,
      rootMode: read.rootMode,
      live: read.live,
      pack,
      hash: expectedHash,
    }),
  };
}

/**
 * What every `snapshot.state` holds of a snapshot (a cache entry's adds its own fields): its workspace,
 * hash and root mode, and its maps as columns.
 */
export function storedSnapshot(snapshot: {
  readonly workspace: string;
  readonly hash: string;
  readonly rootMode: number;
  readonly manifest: ReadonlyMap<string, ManifestEntry>;
  readonly live: ReadonlyMap<string, Stamp>;
  readonly pack: BlobPack;
}): Omit<StoredSnapshot, 'pack'> {
  return {
    version: STATE_VERSION,
    workspace: snapshot.workspace,
    hash: snapshot.hash,
    rootMode: snapshot.rootMode,
    entries: manifestColumns(snapshot.manifest),
    blobs: slotColumns(snapshot.pack.slots()),
    live: stampColumns(snapshot.live),
  };
}

/** The fields of a read `snapshot.state` that {@link storedSnapshot} wrote, with its maps, or why they cannot be used. */
export function readStoredSnapshot(stored: unknown):
  | {
      workspace: string;
      hash: string;
      rootMode: number;
      pack: string | undefined;
      manifest: Map<string, ManifestEntry>;
      slots: Map<string, BlobSlot>;
      live: Map<string, Stamp>;
    }
  | string {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return 'not an object';
  const { version, workspace, hash, rootMode, pack, entries, blobs, live } = stored as Record<string, unknown>;
  if (version !== STATE_VERSION)
    return `written in another format, version ${JSON.stringify(version)}: this redline reads version ${STATE_VERSION}`;
  if (
    typeof workspace !== 'string' ||
    typeof hash !== 'string' ||
    typeof rootMode !== 'number' ||
    (pack !== undefined && typeof pack !== 'string')
  )
    return 'its workspace, hash, root mode or pack is missing or not of its type';
  try {
    return { workspace, hash, rootMode, pack, manifest: manifestFrom(entries), slots: slotsFrom(blobs), live: stampsFrom(live) };
  } catch (error) {
    return (error as Error).message;
  }
}
