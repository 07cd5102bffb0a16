import { hash } from 'node:crypto';
import {
  lstatSync,
  closeSync,
  constants,
  copyFileSync,
  linkSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { BlobPack } from './blob-pack.js';
import type { ManifestEntry } from './manifest.js';
import { removeTree } from './safe-fs.js';
import { readStoredSnapshot, SNAPSHOT_FILE, storedSnapshot, type PreviousSnapshot } from './snapshot.js';
import { decodeState, STATE_VERSION, writeStateFile } from './state-file.js';
import type { Stamp } from './stamp.js';
import type { Drift } from './work-copy.js';
import { stampsFrom, type ManifestColumns, type SlotColumns, type StampColumns } from './state-columns.js';
import { thisOwner, type RunDirectoryOwner } from './sweep.js';

// The work copies that outlive a run (docs/workspaces.md): per workspace, the last snapshot's manifest and
// stamps, the pack of its bytes, the check copy and the in-place agent's copy, so that the next run hashes
// only what changed and resets the copies instead of writing them.

/** @default 4 GiB: above it, the least recently used entries are removed when a run lets go of its entry. */
export const DEFAULT_CACHE_MAX_BYTES = 4 * 1024 ** 3;

/** A pack this much larger than what its snapshot names (plus 64 MiB) is started afresh by the next run. */
const PACK_SLACK = 2;

/**
 * The cache folder: `$REDLINE_CACHE`, else `<scratch>/redline-cache` beside the run directories
 * (`$REDLINE_SCRATCH`, else the temp directory). Undefined when `$REDLINE_CACHE` is `off`.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env, tmp = tmpdir()): string | undefined {
  const given = env.REDLINE_CACHE;
  if (given === 'off') return undefined;
  if (given !== undefined && given !== '') return path.resolve(given);
  return path.join(path.resolve(env.REDLINE_SCRATCH ?? tmp), 'redline-cache');
}

/** The files of an entry that hold the states of the check copy and of the agent's copy (see {@link CopyState}). */
const COPY_STATE = 'copy.state';
const AGENT_STATE = 'agent.state';

/** What the last snapshot of a workspace left in its entry (`snapshot.state`), its maps stored as columns. */
interface StoredState {
  readonly version: typeof STATE_VERSION;
  readonly workspace: string;
  readonly hash: string;
  readonly rootMode: number;
  readonly startedAt: number;
  /** The pack's file (read by its name in the entry; a run directory's link to this file reads it by its path). */
  readonly pack: string;
  readonly entries: ManifestColumns;
  readonly blobs: SlotColumns;
  readonly live: StampColumns;
  /** What the snapshot left out (see `PreviousSnapshot.ignore`). */
  readonly ignore?: string;
}

/** What a copy held when its run let go of it (`copy.state`, `agent.state`): removed while a run holds the entry. */
export interface CopyState {
  readonly version: typeof STATE_VERSION;
  /** The hash of the snapshot the copy was reset from. */
  readonly snapshot: string;
  /** The file system's clock when its last reset ended. */
  readonly settledAt: number;
  readonly stamps: StampColumns;
  /** What the copy held on top of that snapshot (the last candidate, without its text): null deletes. */
  readonly overlay: [string, ManifestEntry | null][];
  /**
   * What the walk that ended the copy's last use found to undo (changed expected paths, entries it should
   * not hold), when nothing ran in it since: the next run then looks at its folders only (`WorkCopy.resume`).
   */
  readonly known?: { readonly changed: string[]; readonly extra: string[] };
}

/** A copy's state as {@link CacheEntry.load} hands it on: read back, checked, and recorded for the snapshot loaded. */
export interface CachedCopy {
  readonly settledAt: number;
  readonly stamps: Map<string, Stamp>;
  readonly overlay: [string, ManifestEntry | null][];
  readonly known?: Drift;
}

/** What `cache status` says of one entry (`entry.json`, plus what the entry is doing). */
export interface CacheEntryInfo {
  readonly dir: string;
  readonly workspace: string;
  readonly lastUsed: number;
  /** The pack's bytes and the copies' file bytes when its run let go of it. */
  readonly bytes: number;
  readonly entries: number;
  /** A run holds it now (its owner, on this host, is alive). */
  readonly inUse: boolean;
}

/** What an entry's last snapshot left for the next one: the pack (opened) and the snapshot to compare with. */
export interface CachedSnapshot {
  readonly pack: BlobPack;
  readonly previous: PreviousSnapshot & { readonly hash: string; readonly rootMode: number };
  /** The check copy's state when its last run let go of it, when it can be trusted as a start. */
  readonly copy: CachedCopy | undefined;
  /** The same for the in-place agent's copy, read when first asked for (its file is taken when the entry is loaded). */
  readonly agent: () => CachedCopy | undefined;
}

/** Whether the process a lock names may still hold it: alive on this host, or on another host (unknowable). */
export function ownerAlive({ host, pid }: RunDirectoryOwner): boolean {
  if (host !== hostname()) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The snapshot an entry's `snapshot.state` records, or undefined when it records none this version can use (another version's, damaged, another workspace's). */
function storedState(
  value: unknown,
  workspace: string,
): (Exclude<ReturnType<typeof readStoredSnapshot>, string> & { pack: string; startedAt: number; ignore?: string }) | undefined {
  const read = readStoredSnapshot(value);
  if (typeof read === 'string' || read.workspace !== workspace || read.pack === undefined) return undefined;
  const { startedAt, ignore } = value as Record<string, unknown>;
  if (typeof startedAt !== 'number') return undefined;
  return { ...read, pack: read.pack, startedAt, ...(typeof ignore === 'string' ? { ignore } : {}) };
}

/** Whether a stored overlay is a list of paths with what the copy held there (an entry, or null). */
function isOverlay(value: unknown): value is [string, ManifestEntry | null][] {
  return (
    Array.isArray(value) &&
    value.every((item: unknown) => {
      if (!Array.isArray(item) || item.length !== 2 || typeof item[0] !== 'string') return false;
      const entry: unknown = item[1];
      if (entry === null) return true;
      if (!isRecord(entry)) return false;
      if (entry.type === 'symlink') return typeof entry.target === 'string';
      if (entry.type === 'dir') return typeof entry.mode === 'number';
      return entry.type === 'file' && typeof entry.mode === 'number' && typeof entry.size === 'number' && typeof entry.hash === 'string';
    })
  );
}

/** A relative path as a copy names its entries: no empty, `.` or `..` component, no leading slash. */
function isCopyPath(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/** A stored `known`: undefined when absent, null when it does not read as one (the state is then not trusted). */
function knownDrift(value: unknown): Drift | undefined | null {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return null;
  const { changed, extra } = value;
  // '' (the copy's root) may be changed, never extra.
  const paths = (list: unknown, root: boolean): list is string[] =>
    Array.isArray(list) && list.every((file) => isCopyPath(file) || (root && file === ''));
  if (!paths(changed, true) || !paths(extra, false)) return null;
  return { changed: new Set(changed), extra: new Set(extra) };
}

/** A copy's stored state when it reads well and was recorded for the snapshot `hash`, else undefined (not trusted). */
function cachedCopy(value: unknown, hash: string): CachedCopy | undefined {
  if (!isRecord(value) || value.version !== STATE_VERSION || value.snapshot !== hash) return undefined;
  const { settledAt, overlay } = value;
  const known = knownDrift(value.known);
  if (typeof settledAt !== 'number' || !isOverlay(overlay) || known === null) return undefined;
  try {
    return { settledAt, stamps: stampsFrom(value.stamps), overlay, ...(known === undefined ? {} : { known }) };
  } catch {
    return undefined;
  }
}

/** Written whole or not at all (a killed process leaves no half file). */
function writeJson(file: string, value: unknown): void {
  writeFileSync(`${file}.partial`, JSON.stringify(value));
  renameSync(`${file}.partial`, file);
}

/**
 * Why `dir` may not hold a cache (undefined when it may): it must be a real folder (no symbolic link),
 * owned by this user, that neither its group nor others may write. A cache in a shared temporary
 * directory would otherwise let another user plant a copy whose recorded state matches, and have the
 * checks run what they planted, as this user.
 */
export function privateFolderProblem(dir: string): string | undefined {
  const info = lstatSync(dir);
  if (!info.isDirectory()) return `${dir} is not a folder`;
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) return `${dir} belongs to user ${info.uid}, not to this user (${uid})`;
  if ((info.mode & 0o022) !== 0) return `${dir} may be written by others (mode ${(info.mode & 0o777).toString(8)})`;
  return undefined;
}

/** The entry folder of a workspace (its real path) in a cache folder. */
export function entryDirOf(cacheDir: string, workspace: string): string {
  return path.join(cacheDir, hash('sha256', workspace, 'hex').slice(0, 20));
}

/** Takes an entry's lock for this process: false when a live process holds it (a lock whose process is gone is taken over). */
function lockEntry(dir: string): boolean {
  const lock = path.join(dir, 'lock');
  for (let tries = 0; tries < 2; tries += 1) {
    let fd: number;
    try {
      fd = openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readJson<RunDirectoryOwner>(lock);
      // A lock being written (no owner yet) or a live owner's: the entry is busy.
      if (owner === undefined || ownerAlive(owner)) return false;
      rmSync(lock, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(thisOwner()));
    } finally {
      closeSync(fd);
    }
    return true;
  }
  return false;
}

/** Whether a run holds the entry now. */
function held(dir: string): boolean {
  const owner = readJson<RunDirectoryOwner>(path.join(dir, 'lock'));
  return owner !== undefined && ownerAlive(owner);
}

/**
 * One workspace's entry of the cache, held by one run at a time (a `lock` file naming its process): a
 * second run on the same workspace finds it held and takes a fresh snapshot and copy of its own.
 */
export class CacheEntry {
  readonly dir: string;
  readonly workspace: string;
  /** How many entries the last snapshot recorded here, as `entry.json` says (0 when it says nothing): a hint only. */
  readonly lastEntries: number;
  #released = false;

  private constructor(dir: string, workspace: string, lastEntries: number) {
    this.dir = dir;
    this.workspace = workspace;
    this.lastEntries = lastEntries;
  }

  /** The check copy's folder. */
  get copyDir(): string {
    return path.join(this.dir, 'copy');
  }

  /** The in-place agent's copy's folder. */
  get agentDir(): string {
    return path.join(this.dir, 'agent');
  }

  /**
   * Takes the workspace's entry: `busy` when another live run holds it (a lock whose process is gone is
   * taken over), `refused` when the cache folder or the entry is not a folder of this user's that only it
   * may write (see {@link privateFolderProblem}).
   */
  static acquire(cacheDir: string, workspace: string): CacheEntry | 'busy' | 'refused' {
    const dir = entryDirOf(cacheDir, workspace);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (privateFolderProblem(cacheDir) !== undefined || privateFolderProblem(dir) !== undefined) return 'refused';
    if (!lockEntry(dir)) return 'busy';
    const before = readJson<Partial<CacheEntryInfo>>(path.join(dir, 'entry.json'));
    const entries = before?.entries;
    const entry = new CacheEntry(dir, workspace, typeof entries === 'number' && Number.isSafeInteger(entries) && entries > 0 ? entries : 0);
    entry.#touch(before);
    return entry;
  }

  #touch(before: Partial<CacheEntryInfo> | undefined, bytes?: number, entries?: number): void {
    writeJson(path.join(this.dir, 'entry.json'), {
      workspace: this.workspace,
      lastUsed: Date.now(),
      bytes: bytes ?? before?.bytes ?? 0,
      entries: entries ?? before?.entries ?? 0,
    });
  }

  /**
   * What the entry's last snapshot left, or undefined when nothing usable is there (first run, another
   * version, a damaged record, a missing or oversized pack): then the caller starts the entry afresh
   * with {@link reset}.
   * The copies' states are removed as they are read: until the run lets go, a crash leaves copies that
   * the next run does not trust.
   */
  load(): CachedSnapshot | undefined {
    const read = (name: string, { keep = false } = {}): Buffer | undefined => {
      const file = path.join(this.dir, name);
      let bytes: Buffer | undefined;
      try {
        bytes = readFileSync(file);
      } catch {
        bytes = undefined;
      }
      if (!keep) rmSync(file, { force: true });
      return bytes;
    };
    const decoded = (bytes: Buffer | undefined): unknown => {
      try {
        return bytes === undefined ? undefined : decodeState(bytes);
      } catch {
        return undefined;
      }
    };
    const copy = decoded(read(COPY_STATE));
    const agentBytes = read(AGENT_STATE);
    const state = storedState(decoded(read(SNAPSHOT_FILE, { keep: true })), this.workspace);
    if (state === undefined) return undefined;
    const { manifest, slots } = state;
    let named = 0;
    for (const entry of manifest.values()) if (entry.type === 'file') named += slots.get(entry.hash)?.size ?? 0;
    let pack: BlobPack;
    try {
      const file = path.join(this.dir, path.basename(state.pack));
      if (statSync(file).size > PACK_SLACK * named + 64 * 1024 * 1024) return undefined;
      pack = BlobPack.open(file, slots);
    } catch {
      return undefined;
    }
    const trusted = (stored: unknown, dir: string): CachedCopy | undefined =>
      existsSync(dir) ? cachedCopy(stored, state.hash) : undefined;
    return {
      pack,
      previous: {
        manifest,
        live: state.live,
        startedAt: state.startedAt,
        hash: state.hash,
        rootMode: state.rootMode,
        ...(state.ignore === undefined ? {} : { ignore: state.ignore }),
      },
      copy: trusted(copy, this.copyDir),
      agent: () => trusted(decoded(agentBytes), this.agentDir),
    };
  }

  /** Empties the entry for a new start: its packs, copy and state go. Returns a new pack. */
  async reset(): Promise<BlobPack> {
    for (const name of readdirSync(this.dir)) {
      if (name === 'lock' || name === 'entry.json') continue;
      await removeTree(path.join(this.dir, name));
    }
    return BlobPack.create(path.join(this.dir, `blobs-${Date.now().toString(36)}-${process.pid}.pack`));
  }

  /** Records the snapshot just taken (its pack's bytes written first), for the next run to compare with. */
  saveSnapshot(fields: {
    hash: string;
    rootMode: number;
    startedAt: number;
    pack: BlobPack;
    manifest: ReadonlyMap<string, ManifestEntry>;
    live: ReadonlyMap<string, Stamp>;
    ignore: string;
  }): void {
    fields.pack.sync();
    const state: StoredState = {
      ...storedSnapshot({ ...fields, workspace: this.workspace }),
      startedAt: fields.startedAt,
      pack: fields.pack.file,
      ignore: fields.ignore,
    };
    writeStateFile(path.join(this.dir, SNAPSHOT_FILE), state);
  }

  /**
   * Gives a run directory the snapshot just saved, as `loadSnapshot` reads it: a hard link to the entry's
   * file (replaced, never rewritten, by the next run), or a copy where a link cannot be made.
   */
  linkSnapshot(file: string): void {
    try {
      linkSync(path.join(this.dir, SNAPSHOT_FILE), file);
    } catch {
      copyFileSync(path.join(this.dir, SNAPSHOT_FILE), file);
    }
  }

  /**
   * Lets go of the entry: records the copies' states (those that can be trusted) and the entry's size,
   * removes the lock. Call after the pack is closed.
   */
  release({
    copy,
    agent,
    bytes,
    entries,
  }: {
    copy: CopyState | undefined;
    agent?: CopyState | undefined;
    bytes: number;
    entries: number;
  }): void {
    if (this.#released) return;
    this.#released = true;
    if (copy !== undefined) writeStateFile(path.join(this.dir, COPY_STATE), copy);
    if (agent !== undefined) writeStateFile(path.join(this.dir, AGENT_STATE), agent);
    this.#touch(readJson<Partial<CacheEntryInfo>>(path.join(this.dir, 'entry.json')), bytes, entries);
    rmSync(path.join(this.dir, 'lock'), { force: true });
  }
}

/** Every entry of a cache folder, least recently used first. */
export function cacheEntries(cacheDir: string): CacheEntryInfo[] {
  let names: string[];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return [];
  }
  const result: CacheEntryInfo[] = [];
  for (const name of names) {
    const dir = path.join(cacheDir, name);
    const info = readJson<Omit<CacheEntryInfo, 'dir' | 'inUse'>>(path.join(dir, 'entry.json'));
    if (info === undefined) continue;
    result.push({ dir, workspace: info.workspace, lastUsed: info.lastUsed, bytes: info.bytes, entries: info.entries, inUse: held(dir) });
  }
  return result.sort((a, b) => a.lastUsed - b.lastUsed);
}

/**
 * Removes entries no run holds: all of them (`all`), those last used before `olderThan` (epoch ms), those
 * whose workspace is gone, then the least recently used until the rest fit in `maxBytes`. Returns what
 * was removed.
 */
export async function pruneCache({
  cacheDir,
  all = false,
  olderThan,
  maxBytes,
}: {
  cacheDir: string;
  all?: boolean;
  olderThan?: number;
  maxBytes?: number;
}): Promise<CacheEntryInfo[]> {
  const entries = cacheEntries(cacheDir);
  let total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
  const removed: CacheEntryInfo[] = [];
  for (const entry of entries) {
    if (entry.inUse) continue;
    const drop =
      all ||
      (olderThan !== undefined && entry.lastUsed < olderThan) ||
      !existsSync(entry.workspace) ||
      (maxBytes !== undefined && total > maxBytes);
    // Locked, then renamed: a run starting meanwhile finds the entry busy, then finds none.
    if (!drop || !lockEntry(entry.dir)) continue;
    const removing = `${entry.dir}~removing-${process.pid}`;
    try {
      renameSync(entry.dir, removing);
    } catch {
      rmSync(path.join(entry.dir, 'lock'), { force: true });
      continue;
    }
    await removeTree(removing);
    total -= entry.bytes;
    removed.push(entry);
  }
  return removed;
}
