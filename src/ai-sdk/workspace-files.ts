import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';

/** Never proposable (`.git`) or not the mission's own sources (`node_modules`): not worth the context. */
const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules']);

export interface WorkspaceFilesOptions {
  /** The workspace directory. */
  readonly dir: string;
  /** Globs of the paths to read: the mission scope. */
  readonly scope: readonly string[];
  /** Relative paths not to read (the latest candidate already shows them). */
  readonly skip: ReadonlySet<string>;
  /** Total bytes of content to return. */
  readonly maxBytes: number;
}

export interface WorkspaceFiles {
  /** Relative path and text content, in walk order. */
  readonly files: ReadonlyArray<readonly [string, string]>;
  /** In-scope paths that did not fit in `maxBytes` or are binary. */
  readonly leftOut: readonly string[];
}

async function* walk(dir: string, prefix: string): AsyncGenerator<string> {
  const entries: Dirent[] = await readdir(path.join(dir, prefix), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) yield* walk(dir, relative);
    else if (entry.isFile()) yield relative;
  }
}

/** A file to consider: its path, its size, and how to read it. */
interface Candidate {
  readonly file: string;
  readonly size: number;
  read(): Buffer | Promise<Buffer>;
}

/** The text files among `entries` that match the scope, in their order, within a byte budget. */
async function pick(
  entries: AsyncIterable<Candidate> | Iterable<Candidate>,
  { scope, skip, maxBytes }: Omit<WorkspaceFilesOptions, 'dir'>,
): Promise<WorkspaceFiles> {
  const inScope = picomatch([...scope], { dot: true });
  const files: Array<readonly [string, string]> = [];
  const leftOut: string[] = [];
  let left = maxBytes;
  for await (const { file, size, read } of entries) {
    if (skip.has(file) || !inScope(file)) continue;
    // The size check comes first so that a huge file is never read.
    if (size > left) {
      leftOut.push(file);
      continue;
    }
    const content = await read();
    if (content.includes(0)) {
      leftOut.push(file);
      continue;
    }
    left -= content.length;
    files.push([file, content.toString('utf8')]);
  }
  return { files, leftOut };
}

/** Reads the text files of a workspace directory that match the scope, in a deterministic order, within a byte budget. */
export async function readWorkspaceFiles({ dir, ...options }: WorkspaceFilesOptions): Promise<WorkspaceFiles> {
  async function* entries(): AsyncGenerator<Candidate> {
    for await (const file of walk(dir, '')) {
      const absolute = path.join(dir, file);
      yield { file, size: (await stat(absolute)).size, read: () => readFile(absolute) };
    }
  }
  return pick(entries(), options);
}

/**
 * The same from the run's snapshot (what every candidate applies to), not from the live workspace:
 * what the user does to the workspace during the run never reaches the model.
 */
export function readBaselineFiles(baseline: readonly Candidate[], options: Omit<WorkspaceFilesOptions, 'dir'>): Promise<WorkspaceFiles> {
  return pick(
    baseline.filter(({ file }) => !file.split('/').some((part) => SKIPPED_DIRECTORIES.has(part))),
    options,
  );
}
