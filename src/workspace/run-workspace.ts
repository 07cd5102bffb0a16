import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SnapshotGoneError } from '../errors/snapshot-gone-error.js';
import { ALWAYS_IGNORED, ignoreRule, type IgnoreRule } from './ignore.js';
import { liveChanges } from './live-changes.js';
import { warmSweep } from './stamp-sweep.js';
import { candidatePathProblem, foldedName } from './path-rules.js';
import { loadSnapshot, saveSnapshot, SNAPSHOT_FILE, takeSnapshot, type Snapshot } from './snapshot.js';
import type { BlobPack } from './blob-pack.js';
import { removeTree } from './safe-fs.js';
import { RECORDED, REMOVING, thisOwner } from './sweep.js';
import { WorkCopy, type CandidateFiles, type Drift, type ResetReport } from './work-copy.js';
import type { Manifest, ManifestEntry } from './manifest.js';
import { sameStamp, type Stamp } from './stamp.js';
import { stampColumns } from './state-columns.js';
import { STATE_VERSION } from './state-file.js';
import { CacheEntry, DEFAULT_CACHE_MAX_BYTES, pruneCache, type CachedCopy, type CopyState } from './workspace-cache.js';

export interface RunWorkspaceOptions {
  readonly runId: string;
  /** The user's workspace (absolute). Only ever read. */
  readonly workspace: string;
  /** The mission's `ignore` globs, on top of the always-ignored `.git` and `.redline`. */
  readonly ignore?: readonly string[];
  /**
   * Where the run keeps its snapshot and copies: `<scratchDir>/redline-runs/<runId>/`.
   * @default process.env.REDLINE_SCRATCH ?? os.tmpdir()
   */
  readonly scratchDir?: string;
  /**
   * The cache folder whose entry for this workspace keeps the last snapshot and a check copy between runs
   * (docs/workspaces.md): the snapshot is then taken against the last one and the copy reset rather than
   * written. Without it, every run writes a fresh copy in its run directory.
   */
  readonly cacheDir?: string;
  /**
   * The cache folder's size above which its least recently used entries go when a run lets go of its own.
   * @default DEFAULT_CACHE_MAX_BYTES (4 GiB)
   */
  readonly cacheMaxBytes?: number;
  /** For tests: take the copies' file system as folding names (or not) instead of probing it. */
  readonly _internal?: { readonly foldsNames?: boolean };
}

/** How the run's snapshot and check copy were had: recorded in `run.started`, shown by `ledger show`. */
export interface SnapshotReport {
  /** Files whose bytes were read and hashed (a cached snapshot reads only the files whose stamp changed). */
  readonly hashed: number;
  /**
   * `fresh`: written with the snapshot; `reused`: the cached copy, reset to the snapshot (`restored`
   * paths rewritten); `rebuilt`: the cached copy could not be trusted and was written from the snapshot.
   */
  readonly copy: 'fresh' | 'reused' | 'rebuilt';
  readonly restored?: number;
  /** Large files of a fresh copy cloned (sharing the workspace file's blocks) instead of written; absent when none. */
  readonly cloned?: number;
  /**
   * Why the cache was not used, the run taking a fresh snapshot and copy: `busy`, another run held the
   * workspace's entry; `refused`, the cache folder is not this user's alone (another user's, or writable by others).
   */
  readonly cache?: 'busy' | 'refused';
}

/** The check copy after a reset: see {@link RunWorkspace.checkCopy}. */
export interface CheckCopy {
  readonly dir: string;
  /** What the reset did. */
  readonly report: ResetReport;
  /** The copy's snapshot and candidate paths that changed since the reset, except those `isOutput` accepts, in path order. */
  readonly changedInputs: (isOutput: (file: string) => boolean) => Promise<string[]>;
  /**
   * False when the copy was taken over from the last run and its paths were not all compared yet (a look
   * at its folders only, see `WorkCopy.verified`): a path changed between the runs is then found only by
   * `changedInputs`, after the checks, and their result must not count.
   */
  readonly verified: boolean;
}

/** The directory every run's directory is in: `<scratchDir>/redline-runs`. */
export function runsRoot(scratchDir = process.env.REDLINE_SCRATCH ?? os.tmpdir()): string {
  return path.join(path.resolve(scratchDir), 'redline-runs');
}

/** The directory a run keeps its snapshot and copies in. */
export function runDirectory(runId: string, scratchDir?: string): string {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(runId))
    throw new TypeError(`Expected a run id of letters, digits, ".", "_" and "-", got ${JSON.stringify(runId)}`);
  return path.join(runsRoot(scratchDir), runId);
}

/** A copy an earlier run left, as a start for this run's (see {@link WorkCopy.resume}). */
interface LeftCopy {
  readonly dir: string;
  readonly stamps: Map<string, Stamp>;
  readonly settledAt: number;
  /** Where it holds something other than this run's snapshot, and what (null: nothing). */
  readonly holds: Map<string, ManifestEntry | null>;
  /** What the walk that ended its last use found, when nothing ran in it since. */
  readonly known?: Drift | undefined;
}

/**
 * A cached copy's state, taken over for `snapshot` (`before` is the snapshot the state was recorded for,
 * `sameManifest` whether its manifest is the snapshot's).
 */
function leftCopy(dir: string, before: Manifest, state: CachedCopy, snapshot: Snapshot, sameManifest: boolean): LeftCopy {
  return {
    dir,
    stamps: state.stamps,
    settledAt: state.settledAt,
    holds: copyDifferences(before, state.overlay, snapshot.manifest, sameManifest),
    known: state.known,
  };
}

/**
 * Takes over a cached copy and resets it to snapshot + `files`; when that fails (a copy left in a state
 * the reset cannot undo), writes it afresh from the snapshot. `restored` is undefined when written afresh.
 */
async function reuseCopy(
  left: LeftCopy,
  snapshot: Snapshot,
  files: CandidateFiles,
  options: { handOut: boolean; verify?: boolean },
): Promise<{ copy: WorkCopy; restored?: number }> {
  const copy = WorkCopy.resume({ ...left, snapshot });
  try {
    const { restored } = await copy.reset(files, options);
    return { copy, restored };
  } catch {
    // A failed reset leaves the copy marked broken: the next one writes it afresh.
    await copy.reset(files, options);
    return { copy };
  }
}

/** Orders paths as a walk of sorted directory listings visits them: by component, not by whole string. */
function compareParts(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    const [x, y] = [a[index] as string, b[index] as string];
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** A path as a case-insensitive, normalizing file system sees it (see `foldedName`). */
function foldedPath(file: string): string {
  return file.split('/').map(foldedName).join('/');
}

/** A directory's path relative to the workspace (compared as real paths), or undefined when it is not inside. */
function inside(workspace: string, dir: string): string | undefined {
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    // Not created yet: compared as given.
  }
  const relative = path.relative(workspace, real).split(path.sep).join('/');
  if (relative === '..' || relative.startsWith('../') || path.isAbsolute(relative)) return undefined;
  return relative;
}

/** The ignored set, with the run directories and the cache folder added when they lie inside the workspace. */
function ignoredFor(workspace: string, runDir: string, globs: readonly string[], cacheDir?: string): IgnoreRule & { key: string } {
  const rule = ignoreRule(globs);
  const scratch = inside(workspace, path.dirname(path.dirname(runDir)));
  const own = [
    ...(scratch === undefined ? [] : [scratch === '' ? 'redline-runs' : `${scratch}/redline-runs`]),
    ...(cacheDir === undefined ? [] : [inside(workspace, cacheDir)].filter((dir) => dir !== undefined)),
  ];
  // Two rules with the same key leave out the same paths (see `PreviousSnapshot.ignore`); the first part
  // names how globs are matched, and changes with it.
  const key = JSON.stringify(['ignore-rule-1', ALWAYS_IGNORED, globs, own]);
  // The cache folder being the workspace itself would leave nothing to snapshot: refused where it is chosen.
  const ownIgnored = (file: string): boolean => own.some((dir) => dir === '' || file === dir || file.startsWith(`${dir}/`));
  return Object.assign(own.length === 0 ? (file: string) => rule(file) : (file: string) => rule(file) || ownIgnored(file), { key });
}

/**
 * Where the copy differs from the snapshot: what it held (`before` with `overlay` on top) wherever `after`
 * differs. With `sameManifest` (`before` is `after`: the workspace's manifest hash did not change), only
 * the overlay is compared.
 */
function copyDifferences(
  before: Manifest,
  overlay: readonly (readonly [string, ManifestEntry | null])[],
  after: Manifest,
  sameManifest: boolean,
): Map<string, ManifestEntry | null> {
  const overlaid = new Map<string, ManifestEntry | null>(overlay);
  const differences = new Map<string, ManifestEntry | null>();
  for (const [file, entry] of overlaid) if (!sameEntry(entry ?? undefined, after.get(file))) differences.set(file, entry);
  if (sameManifest) return differences;
  for (const [file, entry] of before) if (!overlaid.has(file) && !sameEntry(entry, after.get(file))) differences.set(file, entry);
  for (const file of after.keys()) if (!before.has(file) && !overlaid.has(file)) differences.set(file, null);
  return differences;
}

function sameStamps(a: ReadonlyMap<string, Stamp>, b: ReadonlyMap<string, Stamp>): boolean {
  if (a.size !== b.size) return false;
  for (const [file, stamp] of a) {
    const other = b.get(file);
    if (other === undefined || !sameStamp(stamp, other)) return false;
  }
  return true;
}

function sameEntry(a: ManifestEntry | undefined, b: ManifestEntry | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.type === 'file') return b.type === 'file' && a.hash === b.hash && a.mode === b.mode && a.size === b.size;
  if (a.type === 'dir') return b.type === 'dir' && a.mode === b.mode;
  return b.type === 'symlink' && a.target === b.target;
}

/** The report's `cloned`, when the snapshot cloned any file of the copy. */
function cloned({ cloned: count }: { readonly cloned: number }): { cloned?: number } {
  return count > 0 ? { cloned: count } : {};
}

/**
 * Everything a run does with files: the snapshot of the workspace taken when it starts, the isolated
 * copy its checks run in (reset to snapshot + candidate before each check set), the private copy an
 * in-place agent works in, and the comparison of the live workspace with the snapshot at the seal.
 */
export class RunWorkspace {
  readonly runDir: string;
  readonly snapshot: Snapshot & { readonly pack: BlobPack };
  readonly #check: WorkCopy;
  #agent: WorkCopy | undefined;
  /**
   * Where the agent's copy is written on first use, and the copy an earlier run left there (cached): until
   * then, what is handed back to the cache if the run never uses it.
   */
  /** Whether checks may still run in the check copy: set when it is handed out, cleared by {@link checkSetEnded}. */
  #checkSetOpen = false;

  /** The agent's copy's folder and, with a cache, the copy the last run left there (its state read when first asked for). */
  readonly #agentStart: { readonly dir: string; readonly left?: () => LeftCopy | undefined };
  /** How the snapshot and check copy were had. */
  readonly report: SnapshotReport;
  /** The workspace's cache entry, held while the run goes on, and the cache's size cap. */
  readonly #cache: { readonly entry: CacheEntry; readonly maxBytes: number } | undefined;
  /** Whether the run directory's file system takes `A` and `a` for one name (macOS, Windows). */
  readonly #foldsNames: boolean;
  #foldedPaths: Map<string, string> | undefined;
  /**
   * The copy operation in flight: operations run one at a time, and {@link dispose} waits for the last,
   * so a reset that a stopped run no longer waits for cannot write into a directory being removed.
   */
  #busy: Promise<unknown> = Promise.resolve();
  /** The files the agent copy is to be brought to ahead of its first use (see {@link agentCopyAhead}). */
  #ahead: CandidateFiles | undefined;
  /** Whether {@link agentCopy} handed the agent's copy out (a copy readied ahead is not yet the agent's). */
  #agentHandedOut = false;

  private constructor(
    runDir: string,
    snapshot: Snapshot & { readonly pack: BlobPack },
    check: WorkCopy,
    foldsNames: boolean | undefined,
    report: SnapshotReport,
    cache?: { readonly entry: CacheEntry; readonly maxBytes: number; readonly agent?: () => LeftCopy | undefined },
  ) {
    this.runDir = runDir;
    this.snapshot = snapshot;
    this.#check = check;
    this.report = report;
    this.#cache = cache;
    this.#agentStart =
      cache === undefined
        ? { dir: path.join(runDir, 'agent') }
        : { dir: cache.entry.agentDir, ...(cache.agent === undefined ? {} : { left: cache.agent }) };
    if (foldsNames === undefined) writeFileSync(path.join(runDir, 'Case-Probe'), '');
    this.#foldsNames = foldsNames ?? existsSync(path.join(runDir, 'case-probe'));
    // The walks after the checks and the agent split their `lstat`s with a second thread: started now, ready by then.
    warmSweep(snapshot.manifest.size);
  }

  /**
   * Takes the snapshot (the workspace's bytes go into the run directory) and writes the check copy with it;
   * with a cache folder whose entry for the workspace no other run holds, the snapshot is taken against
   * the entry's last one and its copy is reset to it.
   */
  static async start({
    runId,
    workspace: given,
    ignore = [],
    scratchDir,
    cacheDir,
    cacheMaxBytes = DEFAULT_CACHE_MAX_BYTES,
    _internal,
  }: RunWorkspaceOptions): Promise<RunWorkspace> {
    // The real directory: a workspace reached through a symlink is read, and compared, where it is.
    const workspace = realpathSync(given);
    const runDir = runDirectory(runId, scratchDir);
    if (cacheDir !== undefined && inside(workspace, cacheDir) === '')
      throw new TypeError(`Expected a cache folder outside the workspace, got the workspace itself (${cacheDir})`);
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    // First, so that a process killed while it snapshots leaves a directory recovery can tell is orphaned.
    writeFileSync(path.join(runDir, 'owner.json'), JSON.stringify(thisOwner()));
    const ignored = ignoredFor(workspace, runDir, ignore, cacheDir);
    const entry = cacheDir === undefined ? undefined : CacheEntry.acquire(cacheDir, workspace);
    if (entry instanceof CacheEntry)
      return RunWorkspace.#startCached({ workspace, runDir, ignored, entry, maxBytes: cacheMaxBytes, foldsNames: _internal?.foldsNames });
    let taken: Awaited<ReturnType<typeof takeSnapshot>> | undefined;
    try {
      taken = await takeSnapshot({ workspace, ignored, runDir, copyDir: path.join(runDir, 'check') });
      saveSnapshot(taken.snapshot, path.join(runDir, SNAPSHOT_FILE));
      return new RunWorkspace(
        runDir,
        taken.snapshot,
        WorkCopy.adopt(path.join(runDir, 'check'), taken.snapshot, taken.copyStamps),
        _internal?.foldsNames,
        { hashed: taken.hashed, copy: 'fresh', ...cloned(taken), ...(entry === undefined ? {} : { cache: entry }) },
      );
    } catch (error) {
      taken?.snapshot.pack.close();
      await removeTree(runDir);
      throw error;
    }
  }

  /** {@link start} with the workspace's cache entry held: see docs/workspaces.md. */
  static async #startCached({
    workspace,
    runDir,
    ignored,
    entry,
    maxBytes,
    foldsNames,
  }: {
    workspace: string;
    runDir: string;
    ignored: IgnoreRule & { key: string };
    entry: CacheEntry;
    maxBytes: number;
    foldsNames: boolean | undefined;
  }): Promise<RunWorkspace> {
    let pack: BlobPack | undefined;
    // The snapshot's walk splits its `lstat`s with a second thread, for a workspace as large as the last one
    // here: started now, so that it is ready by the time the entry's state is read.
    warmSweep(entry.lastEntries);
    try {
      const cached = entry.load();
      pack = cached?.pack ?? (await entry.reset());
      const clock = path.join(entry.dir, 'clock');
      const taken = await takeSnapshot({
        workspace,
        ignored,
        runDir,
        pack,
        clock,
        ...(cached === undefined ? { copyDir: entry.copyDir } : { previous: cached.previous, ignoreKey: ignored.key }),
      });
      const { snapshot } = taken;
      // A workspace found exactly as the last snapshot left it (nothing read, every stamp the same) keeps
      // that snapshot's record, its walk's start included: rewriting it would change nothing the next run reads.
      if (
        cached === undefined ||
        taken.hashed > 0 ||
        snapshot.hash !== cached.previous.hash ||
        cached.previous.ignore !== ignored.key ||
        !sameStamps(snapshot.live, cached.previous.live)
      )
        entry.saveSnapshot({ ...snapshot, startedAt: taken.startedAt, ignore: ignored.key });
      let check: WorkCopy;
      let report: SnapshotReport;
      let agent: (() => LeftCopy | undefined) | undefined;
      const sameRoot = cached?.previous.rootMode === snapshot.rootMode;
      const sameManifest = snapshot.hash === cached?.previous.hash;
      if (cached === undefined) {
        check = WorkCopy.adopt(entry.copyDir, snapshot, taken.copyStamps);
        report = { hashed: taken.hashed, copy: 'fresh', ...cloned(taken) };
      } else {
        const reused =
          cached.copy === undefined || sameRoot === false
            ? undefined
            : await reuseCopy(
                leftCopy(entry.copyDir, cached.previous.manifest, cached.copy, snapshot, sameManifest),
                snapshot,
                {},
                {
                  handOut: false,
                },
              );
        check = reused?.copy ?? (await WorkCopy.materialize(entry.copyDir, snapshot));
        report =
          reused?.restored === undefined
            ? { hashed: taken.hashed, copy: 'rebuilt' }
            : { hashed: taken.hashed, copy: 'reused', restored: reused.restored };
        // The agent's copy is readied later (while the baseline's checks run): its state is read then.
        if (sameRoot) {
          const { previous, agent: agentState } = cached;
          let left: LeftCopy | undefined | null = null;
          agent = () => {
            if (left === null) {
              const state = agentState();
              left = state === undefined ? undefined : leftCopy(entry.agentDir, previous.manifest, state, snapshot, sameManifest);
            }
            return left;
          };
        }
      }
      entry.linkSnapshot(path.join(runDir, SNAPSHOT_FILE));
      return new RunWorkspace(runDir, snapshot, check, foldsNames, report, { entry, maxBytes, ...(agent === undefined ? {} : { agent }) });
    } catch (error) {
      pack?.close();
      entry.release({ copy: undefined, bytes: 0, entries: 0 });
      await removeTree(runDir);
      throw error;
    }
  }

  /** Marks the run directory as belonging to a run the ledger holds (see `sweepRunDirectories`). */
  markRecorded(): void {
    writeFileSync(path.join(this.runDir, RECORDED), '');
  }

  /**
   * The workspace of a run that is resumed: its saved snapshot when it is still there, else a new one of
   * the live workspace if that still has the recorded manifest hash.
   * @throws {SnapshotGoneError} when neither holds the recorded baseline.
   */
  static async resume(options: RunWorkspaceOptions & { readonly manifestHash: string }): Promise<RunWorkspace> {
    const runDir = runDirectory(options.runId, options.scratchDir);
    const ignored = ignoredFor(realpathSync(options.workspace), runDir, options.ignore ?? []);
    const saved = loadSnapshot(path.join(runDir, SNAPSHOT_FILE), path.join(runDir, 'blobs.pack'), options.manifestHash, ignored);
    if ('snapshot' in saved) {
      writeFileSync(path.join(runDir, 'owner.json'), JSON.stringify(thisOwner()));
      const check = await WorkCopy.materialize(path.join(runDir, 'check'), saved.snapshot).catch((error: unknown) => {
        saved.snapshot.pack.close();
        throw error;
      });
      rmSync(path.join(runDir, 'agent'), { recursive: true, force: true });
      return new RunWorkspace(runDir, saved.snapshot, check, undefined, { hashed: 0, copy: 'fresh' });
    }
    const fresh = await RunWorkspace.start(options);
    if (fresh.snapshot.hash === options.manifestHash) return fresh;
    await fresh.dispose();
    throw new SnapshotGoneError(
      `the run's snapshot is gone (${saved.missing}) and the workspace ${options.workspace} no longer matches its baseline (manifest ${options.manifestHash.slice(0, 12)}…, now ${fresh.snapshot.hash.slice(0, 12)}…)`,
    );
  }

  /**
   * Why each refused path of a candidate may not be written (empty when every path may). Where the copies'
   * file system folds case or normalizes names, a path that names another snapshot or candidate path
   * there is refused too.
   */
  candidateProblems(files: CandidateFiles): string[] {
    const problems: string[] = [];
    const seen = new Map<string, string>();
    for (const file of Object.keys(files)) {
      const problem = candidatePathProblem(file, files, this.snapshot.manifest, this.snapshot.ignored);
      if (problem !== undefined) problems.push(problem);
      else if (this.#folded !== undefined) {
        const folded = foldedPath(file);
        const other = this.#folded.get(folded) ?? seen.get(folded);
        if (other !== undefined && other !== file)
          problems.push(`a path ${JSON.stringify(file)} that names ${JSON.stringify(other)} on this case-insensitive file system`);
        seen.set(folded, file);
      }
    }
    return problems;
  }

  /** The snapshot's paths by their folded form, when the copies' file system folds names; else undefined. */
  get #folded(): Map<string, string> | undefined {
    if (!this.#foldsNames) return undefined;
    this.#foldedPaths ??= new Map([...this.snapshot.manifest.keys()].map((file) => [foldedPath(file), file]));
    return this.#foldedPaths;
  }

  #serially<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#busy.then(operation);
    this.#busy = result.catch(() => undefined);
    return result;
  }

  /**
   * The check copy, reset to exactly snapshot + `files`, and how to ask which of those paths changed since
   * (`changedInputs`, see {@link WorkCopy.changedInputs}): asked after each check, it tells whether the
   * check saw what it was meant to. The copy an earlier run left is readied at the start by a look at its
   * folders only (`verified` false) unless `verify` asks for every path to be compared first; the paths
   * `outputs` accepts (the checks' declared outputs, which the comparison after them leaves out) are then
   * compared before the checks run.
   */
  checkCopy(
    files: CandidateFiles,
    { verify = false, outputs }: { verify?: boolean; outputs?: (file: string) => boolean } = {},
  ): Promise<CheckCopy> {
    const copy = this.#serially(async (): Promise<CheckCopy> => {
      // Paths the checks declare they rewrite are left out of the comparison after them: compared before.
      if (!verify && outputs !== undefined && !this.#check.verified) this.#check.compareSome(outputs);
      const report = await this.#check.reset(files, { verify });
      const check = this.#check;
      // In use until the caller says its checks ended: a walk found while one may still run is not handed on.
      this.#checkSetOpen = true;
      return {
        dir: check.dir,
        report,
        changedInputs: (isOutput) => this.#serially(() => check.changedInputs(isOutput)),
        verified: check.verified,
      };
    });
    const ahead = this.#ahead;
    this.#ahead = undefined;
    if (ahead !== undefined)
      // Right behind the reset, so while the checks run; what comes after them waits for it.
      void this.#serially(async () => {
        // After the turn in which the checks start their programs, not before.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.#agent !== undefined) return;
        // A failure here is met again, and reported, when the agent asks for its copy.
        // Handed out later, after a walk of every path: what anything did to it meanwhile is undone then.
        await this.#prepareAgent(ahead, { handOut: true }).catch(() => undefined);
      });
    return copy;
  }

  /**
   * Says that the checks of the set the last {@link checkCopy} was for all ended (none of their programs
   * runs): only then is the walk after the last of them handed on to the next run with the copy's state.
   * A set cut short (the run stopped) leaves the next run to walk the copy in full.
   */
  checkSetEnded(): void {
    this.#checkSetOpen = false;
  }

  /**
   * Asks for the agent's copy to be written, or the one an earlier run left to be walked and reset, while
   * the next check set runs (the baseline's, before the agent's first attempt), in the time the run
   * otherwise waits for the checks: {@link agentCopy} then walks it (one `lstat` per path) and finds
   * nothing left to write unless something changed it meanwhile, which it undoes.
   */
  agentCopyAhead(files: CandidateFiles): void {
    if (this.#agent === undefined) this.#ahead = files;
  }

  async #prepareAgent(files: CandidateFiles, options: { handOut: boolean; verify?: boolean }): Promise<void> {
    if (this.#agent === undefined) {
      const { dir } = this.#agentStart;
      const left = this.#agentStart.left?.();
      if (left === undefined) {
        this.#agent = await WorkCopy.materialize(dir, this.snapshot);
        await this.#agent.reset(files, options);
      } else this.#agent = (await reuseCopy(left, this.snapshot, files, options)).copy;
    } else await this.#agent.reset(files, options);
  }

  /**
   * The agent's private copy, reset to exactly snapshot + `files`: written on first use, or, with a cache,
   * the copy the last run on the workspace left, reset like the check copy.
   */
  agentCopy(files: CandidateFiles): Promise<string> {
    return this.#serially(async () => {
      this.#ahead = undefined;
      // A copy taken over by a look at its folders (the walk that ended the last run's use kept with its
      // state) is walked in full first: an agent's leftovers could have changed any path.
      await this.#prepareAgent(files, { handOut: true, verify: true });
      this.#agentHandedOut = true;
      return (this.#agent as WorkCopy).dir;
    });
  }

  /** What the agent changed in its copy since {@link agentCopy}, as candidate files on top of the ones it got. */
  agentChanges(options: { readonly maxBytes?: number } = {}): Promise<Record<string, string | null>> {
    return this.#serially(async () => {
      this.#ahead = undefined;
      if (this.#agent === undefined || !this.#agentHandedOut) throw new TypeError('Expected the agent copy to be prepared first, got none');
      return this.#agent.changes(options);
    });
  }

  /** Paths where the live workspace no longer matches the snapshot. */
  liveChanges(): Promise<string[]> {
    return liveChanges(this.snapshot);
  }

  /** Every file of the snapshot, in path order (by component), its bytes read (and checked) on demand. */
  baselineFiles(): { file: string; size: number; read: () => Buffer }[] {
    const result: { file: string; size: number; read: () => Buffer }[] = [];
    for (const [file, entry] of this.snapshot.manifest) {
      if (entry.type === 'file') result.push({ file, size: entry.size, read: () => this.snapshot.blob(entry.hash) });
    }
    const parts = new Map(result.map(({ file }) => [file, file.split('/')]));
    return result.sort((a, b) => compareParts(parts.get(a.file) as string[], parts.get(b.file) as string[]));
  }

  /** One file of the snapshot: its size and its bytes read (and checked) on demand; null when the snapshot has no file there. */
  baselineFile(file: string): { size: number; read: () => Buffer } | null {
    const entry = this.snapshot.manifest.get(file);
    return entry?.type === 'file' ? { size: entry.size, read: () => this.snapshot.blob(entry.hash) } : null;
  }

  /** The snapshot's content hash of each path (null: the snapshot has no file there), for admission. */
  baselineOf(files: readonly string[]): Record<string, string | null> {
    const result: Record<string, string | null> = {};
    for (const file of files) {
      const entry = this.snapshot.manifest.get(file);
      result[file] = entry?.type === 'file' ? entry.hash : null;
    }
    return result;
  }

  /** Lets go of the snapshot but keeps the run directory, for a run that must be recovered later. */
  async close(): Promise<void> {
    await this.#busy;
    this.snapshot.pack.close();
    await this.#releaseCache();
  }

  /** Hands the cache entry back (with the copies' states, for the next run), then keeps the cache within its cap. */
  async #releaseCache(): Promise<void> {
    if (this.#cache === undefined) return;
    // A copy's state keeps what the walk that ended its last use found: the next run readies it by a look at
    // its folders. The check copy's paths are all compared by the walk after its first check set
    // (`checkCopy`), the agent's before it is handed out (`agentCopy`).
    const stated = (state: ReturnType<WorkCopy['state']>): CopyState | undefined =>
      state === undefined
        ? undefined
        : {
            version: STATE_VERSION,
            snapshot: this.snapshot.hash,
            settledAt: state.settledAt,
            stamps: stampColumns(state.stamps),
            overlay: state.overlay,
            ...(state.known === undefined ? {} : { known: { changed: [...state.known.changed], extra: [...state.known.extra] } }),
          };
    const left = this.#agentStart.left?.();
    // An agent copy this run did not use is handed on as the last run left it, its differences from this snapshot as its overlay.
    const agent =
      this.#agent !== undefined
        ? stated(this.#agent.state())
        : left === undefined
          ? undefined
          : stated({ stamps: [...left.stamps], settledAt: left.settledAt, overlay: [...left.holds], known: left.known });
    let fileBytes = 0;
    for (const entry of this.snapshot.manifest.values()) if (entry.type === 'file') fileBytes += entry.size;
    const { entry, maxBytes } = this.#cache;
    const check = this.#check.state();
    entry.release({
      copy: stated(check === undefined || !this.#checkSetOpen ? check : { ...check, known: undefined }),
      agent,
      bytes: this.snapshot.pack.size + fileBytes * (agent === undefined ? 1 : 2),
      entries: this.snapshot.manifest.size,
    });
    await pruneCache({ cacheDir: path.dirname(entry.dir), maxBytes });
  }

  /**
   * Removes the run directory: the snapshot's blobs and both copies. It is renamed at once and deleted in
   * the background, so a large tree never delays the result; what a killed process leaves is swept by
   * recovery (`sweepRunDirectories`).
   */
  async dispose(): Promise<void> {
    await this.#busy;
    this.snapshot.pack.close();
    await this.#releaseCache();
    const removing = `${this.runDir}${REMOVING}-${process.pid}-${Date.now()}`;
    try {
      renameSync(this.runDir, removing);
    } catch {
      await removeTree(this.runDir);
      return;
    }
    void removeTree(removing).catch(() => undefined);
  }
}
