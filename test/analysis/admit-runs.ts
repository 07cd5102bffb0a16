import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Ledger } from '../../src/ledger/ledger.js';
import { contentHash } from '../../src/workspace/manifest.js';

// Runs as the loop records them (the contract admission reads): `run.started` with the mission,
// the last `attempt` with the sealed candidate, and `run.sealed` with the candidate's hash and, since
// redline records it, the baseline's hash per candidate path.

export interface RecordedRun {
  /** The sealed candidate: content per path, null = delete. */
  readonly files: Readonly<Record<string, string | null>>;
  /** The baseline's content per candidate path (a missing key = no file there); 'unrecorded' for a run sealed before redline kept it. @default {} */
  readonly baseline?: Readonly<Record<string, string>> | 'unrecorded';
  readonly workspaceDir?: string;
  /** @default 'complete' */
  readonly outcome?: string;
  /** @default 'verified' */
  readonly verification?: string;
  /** The shadow verdict the seal records (its failing check is `held-out`); none: no shadow checks. */
  readonly shadow?: 'pass' | 'fail';
  /** The review item the seal's handoff enqueued the run as. */
  readonly reviewItemId?: string;
  readonly runId?: string;
}

let runs = 0;

/** Appends a sealed run to `ledger` and returns its id. */
export async function recordRun(
  ledger: Ledger,
  {
    files,
    baseline = {},
    workspaceDir,
    outcome = 'complete',
    verification = 'verified',
    shadow,
    reviewItemId,
    runId = `admit-${process.pid}-${(runs += 1)}`,
  }: RecordedRun,
): Promise<string> {
  const hash = contentHash(JSON.stringify(files));
  const candidate = { files, footprint: Object.keys(files).sort(), hash };
  const mission = {
    id: 'admit-test',
    goal: 'make the change',
    taskType: 'default',
    ...(workspaceDir === undefined ? {} : { workspaceDir }),
  };
  const hashes =
    baseline === 'unrecorded'
      ? undefined
      : Object.fromEntries(
          Object.keys(files).map((file) => [file, baseline[file] === undefined ? null : contentHash(baseline[file] as string)]),
        );
  const records = [
    { type: 'run.started', data: { mission } },
    { type: 'attempt', data: { attempt: 1, candidate, candidateHash: hash } },
    {
      type: 'run.sealed',
      data: {
        outcome,
        verification,
        stopReason: outcome === 'complete' ? 'demand_passed' : 'budget_attempts',
        detail: '',
        attempts: 1,
        candidateHash: hash,
        ...(hashes === undefined ? {} : { baseline: { manifest: contentHash('manifest'), files: hashes } }),
        ...(shadow === undefined
          ? {}
          : {
              shadow: {
                verdict: shadow,
                findings: [
                  { check: 'held-out', status: shadow, reasonCodes: [], message: `held-out ${shadow}`, tier: 'demand', stage: 'fast' },
                ],
              },
            }),
        ...(reviewItemId === undefined ? {} : { handoff: { enqueued: true, itemId: reviewItemId, tags: ['sample'], mode: 'normal' } }),
      },
    },
  ] as const;
  for (const [seq, { type, data }] of records.entries()) await ledger.append({ runId, seq, type, at: 1_000 + seq, data });
  return runId;
}

/** A tree to lay out: file content, or a symlink to a target, or an empty directory. */
export type Layout = Readonly<Record<string, string | { readonly symlink: string } | { readonly dir: true }>>;

export async function layOut(root: string, layout: Layout): Promise<void> {
  for (const [file, entry] of Object.entries(layout)) {
    const target = path.join(root, file);
    await mkdir(path.dirname(target), { recursive: true });
    if (typeof entry === 'string') await writeFile(target, entry);
    else if ('symlink' in entry) await symlink(entry.symlink, target);
    else await mkdir(target, { recursive: true });
  }
}

/** Everything under `root` without following a symlink: file bytes (hex) and modes, link targets, directories. */
export async function treeOf(root: string): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const name of (await readdir(dir)).sort()) {
      const full = path.join(dir, name);
      const key = path.relative(root, full);
      const info = await lstat(full);
      if (info.isSymbolicLink()) tree[key] = `link ${await readlink(full)}`;
      else if (info.isDirectory()) {
        tree[key] = `dir ${(info.mode & 0o777).toString(8)}`;
        await walk(full);
      } else tree[key] = `file ${(info.mode & 0o777).toString(8)} ${(await readFile(full)).toString('hex')}`;
    }
  };
  await walk(root);
  return tree;
}
