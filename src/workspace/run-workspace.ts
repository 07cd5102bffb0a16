import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { RedlineError } from '../errors/redline-error.js';
import { ignoreRule, type IgnoreRule } from './ignore.js';
import { liveChanges } from './live-changes.js';
import { candidatePathProblem } from './path-rules.js';
import { loadSnapshot, saveSnapshot, takeSnapshot, type Snapshot } from './snapshot.js';
import type { BlobPack } from './blob-pack.js';
import { REMOVING, thisOwner } from './sweep.js';
import { WorkCopy, type CandidateFiles, type ResetReport } from './work-copy.js';

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
}

/** The directory every run's directory is in: `<scratchDir>/redline-runs`. */
export function runsRoot(scratchDir = process.env.REDLINE_SCRATCH ?? os.tmpdir()): string {
  return path.join(path.resolve(scratchDir), 'redline-runs');
}

/** The directory a run keeps its snapshot and copies in. */
export function runDirectory(runId: string, scratchDir?: string): string {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(runId)) throw new TypeError(`Expected a run id of letters, digits, ".", "_" and "-", got ${JSON.stringify(runId)}`);
  return path.join(runsRoot(scratchDir), runId);
}

/** A resumed run's baseline is gone: its snapshot was removed and the workspace no longer matches it. */
export class SnapshotGoneError extends RedlineError {
  constructor(message: string) {
    super({ code: 'workspace.snapshot_gone', message });
    this.name = 'SnapshotGoneError';
  }
}

/** The ignored set, with the run directory added when it lies inside the workspace. */
function ignoredFor(workspace: string, runDir: string, globs: readonly string[]): IgnoreRule {
  const rule = ignoreRule(globs);
  const inside = path.relative(workspace, path.dirname(path.dirname(runDir))).split(path.sep).join('/');
  if (inside === '..' || inside.startsWith('../') || path.isAbsolute(inside)) return rule;
  if (inside === '') return (file) => rule(file) || file === 'redline-runs' || file.startsWith('redline-runs/');
  const own = `${inside}/redline-runs`;
  return (file) => rule(file) || file === own || file.startsWith(`${own}/`);
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
   * The copy operation in flight: operations run one at a time, and {@link dispose} waits for the last,
   * so a reset that a stopped run no longer waits for cannot write into a directory being removed.
   */
  #busy: Promise<unknown> = Promise.resolve();

  private constructor(runDir: string, snapshot: Snapshot & { readonly pack: BlobPack }, check: WorkCopy) {
    this.runDir = runDir;
    this.snapshot = snapshot;
    this.#check = check;
  }

  /** Takes the snapshot (the workspace's bytes go into the run directory) and writes the check copy with it. */
  static async start({ runId, workspace, ignore = [], scratchDir }: RunWorkspaceOptions): Promise<RunWorkspace> {
    const runDir = runDirectory(runId, scratchDir);
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    // First, so that a process killed while it snapshots leaves a directory recovery can tell is orphaned.
    writeFileSync(path.join(runDir, 'owner.json'), JSON.stringify(thisOwner()));
    try {
      const { snapshot, copyStamps } = await takeSnapshot({ workspace, ignored: ignoredFor(workspace, runDir, ignore), runDir, copyDir: path.join(runDir, 'check') });
      saveSnapshot(snapshot, path.join(runDir, 'snapshot.json'));
      return new RunWorkspace(runDir, snapshot, WorkCopy.adopt(path.join(runDir, 'check'), snapshot, copyStamps));
    } catch (error) {
      rmSync(runDir, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * The workspace of a run that is resumed: its saved snapshot when it is still there, else a new one of
   * the live workspace if that still has the recorded manifest hash.
   * @throws {SnapshotGoneError} when neither holds the recorded baseline.
   */
  static async resume(options: RunWorkspaceOptions & { readonly manifestHash: string }): Promise<RunWorkspace> {
    const runDir = runDirectory(options.runId, options.scratchDir);
    const ignored = ignoredFor(options.workspace, runDir, options.ignore ?? []);
    const saved = loadSnapshot(path.join(runDir, 'snapshot.json'), path.join(runDir, 'blobs.pack'), options.manifestHash, ignored);
    if ('snapshot' in saved) {
      writeFileSync(path.join(runDir, 'owner.json'), JSON.stringify(thisOwner()));
      const check = await WorkCopy.materialize(path.join(runDir, 'check'), saved.snapshot).catch((error: unknown) => {
        saved.snapshot.pack.close();
        throw error;
      });
      rmSync(path.join(runDir, 'agent'), { recursive: true, force: true });
      return new RunWorkspace(runDir, saved.snapshot, check);
    }
    const fresh = await RunWorkspace.start(options);
    if (fresh.snapshot.hash === options.manifestHash) return fresh;
    await fresh.dispose();
    throw new SnapshotGoneError(`the run's snapshot is gone (${saved.missing}) and the workspace ${options.workspace} no longer matches its baseline (manifest ${options.manifestHash.slice(0, 12)}…, now ${fresh.snapshot.hash.slice(0, 12)}…)`);
  }

  /** Why each refused path of a candidate may not be written (empty when every path may). */
  candidateProblems(files: CandidateFiles): string[] {
    const problems: string[] = [];
    for (const file of Object.keys(files)) {
      const problem = candidatePathProblem(file, files, this.snapshot.manifest, this.snapshot.ignored);
      if (problem !== undefined) problems.push(problem);
    }
    return problems;
  }

  #serially<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#busy.then(operation);
    this.#busy = result.catch(() => undefined);
    return result;
  }

  /** The check copy, reset to exactly snapshot + `files`. */
  checkCopy(files: CandidateFiles): Promise<{ dir: string; report: ResetReport }> {
    return this.#serially(async () => ({ report: await this.#check.reset(files), dir: this.#check.dir }));
  }

  /** The agent's private copy (written on first use), reset to exactly snapshot + `files`. */
  agentCopy(files: CandidateFiles): Promise<string> {
    return this.#serially(async () => {
      this.#agent ??= await WorkCopy.materialize(path.join(this.runDir, 'agent'), this.snapshot);
      await this.#agent.reset(files);
      return this.#agent.dir;
    });
  }

  /** What the agent changed in its copy since {@link agentCopy}, as candidate files on top of the ones it got. */
  agentChanges(): Promise<Record<string, string | null>> {
    return this.#serially(async () => {
      if (this.#agent === undefined) throw new TypeError('Expected the agent copy to be prepared first, got none');
      return this.#agent.changes();
    });
  }

  /** Paths where the live workspace no longer matches the snapshot. */
  liveChanges(): Promise<string[]> {
    return liveChanges(this.snapshot);
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
  }

  /**
   * Removes the run directory: the snapshot's blobs and both copies. It is renamed at once and deleted in
   * the background, so a large tree never delays the result; what a killed process leaves is swept by
   * recovery (`sweepRunDirectories`).
   */
  async dispose(): Promise<void> {
    await this.#busy;
    this.snapshot.pack.close();
    const removing = `${this.runDir}${REMOVING}-${process.pid}-${Date.now()}`;
    try {
      renameSync(this.runDir, removing);
    } catch {
      await rm(this.runDir, { recursive: true, force: true });
      return;
    }
    void rm(removing, { recursive: true, force: true }).catch(() => undefined);
  }
}
