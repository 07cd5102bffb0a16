import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { RunWorkspace, type RunWorkspaceOptions } from '../../src/workspace/run-workspace.js';
import { buildTree, OUTSIDE, type TreeSpec } from './arbitraries.js';
import { tempBase, writeTree, type Tree } from './tree.js';

/** A workspace laid from a spec beside the targets of its outward links, with a scratch and a cache folder, under one temporary base. */
export interface LaidWorkspace {
  readonly base: string;
  readonly ws: string;
  /** Where the workspace's outward links point. */
  readonly outside: string;
  /** An empty folder beside the workspace, for the look-alikes a check action plants. */
  readonly lookalikes: string;
  /** Not created: a run makes it. */
  readonly scratch: string;
  /** Not created: a run makes it. */
  readonly cache: string;
  /** What the workspace holds. */
  readonly tree: Tree;
  /** Deletes the base with everything in it. */
  remove(): void;
}

export interface LayOptions {
  /** Names the temporary base. */
  readonly prefix: string;
  readonly spec: TreeSpec;
  /** A case may leave folders without permissions (a hostile agent does): removal opens them first. @default false */
  readonly closedFolders?: boolean;
}

export function layWorkspace({ prefix, spec, closedFolders = false }: LayOptions): LaidWorkspace {
  const { dir: base, remove } = tempBase(prefix);
  const ws = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const lookalikes = path.join(base, 'lookalikes');
  for (const dir of [ws, outside, lookalikes]) mkdirSync(dir);
  chmodSync(ws, 0o755);
  const tree = buildTree(spec, outside);
  writeTree(ws, tree);
  writeTree(outside, OUTSIDE);
  return {
    base,
    ws,
    outside,
    lookalikes,
    scratch: path.join(base, 'scratch'),
    cache: path.join(base, 'cache'),
    tree,
    remove: () => {
      if (closedFolders && existsSync(base)) openUp(base);
      remove();
    },
  };
}

function openUp(dir: string): void {
  if (!lstatSync(dir).isDirectory()) return;
  chmodSync(dir, 0o700);
  for (const name of readdirSync(dir)) openUp(path.join(dir, name));
}

/** Lays a workspace, hands it to `work`, and always removes it. */
export async function withLaidWorkspace(options: LayOptions, work: (laid: LaidWorkspace) => Promise<void>): Promise<void> {
  const laid = layWorkspace(options);
  try {
    await work(laid);
  } finally {
    laid.remove();
  }
}

/** Starts run `runId` on the laid workspace, with its scratch and cache folders. */
export function startRun(
  laid: LaidWorkspace,
  runId: string,
  options: Omit<RunWorkspaceOptions, 'runId' | 'workspace' | 'scratchDir'> = {},
): Promise<RunWorkspace> {
  return RunWorkspace.start({ runId, workspace: laid.ws, scratchDir: laid.scratch, cacheDir: laid.cache, ...options });
}

/** Starts run `runId` on the laid workspace, hands it to `work`, and always disposes of it. */
export async function withRun<T>(laid: LaidWorkspace, runId: string, work: (run: RunWorkspace) => Promise<T>): Promise<T> {
  const run = await startRun(laid, runId);
  try {
    return await work(run);
  } finally {
    await run.dispose();
  }
}
