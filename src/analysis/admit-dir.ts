import { lstatSync, mkdirSync, rmdirSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { EscapeError } from '../errors/escape-error.js';
import { readNoFollow, removeInside, writeInside } from '../workspace/safe-fs.js';
import { AdmitError } from '../errors/admit-error.js';
import type { Change, Found } from './admit-plan.js';

// A user's directory: nothing here follows a symlink, so nothing outside `dir` is read or written.

const lstat = (target: string): Stats | undefined => lstatSync(target, { throwIfNoEntry: false });

function what(info: Stats): string {
  return info.isSymbolicLink() ? 'a symlink' : info.isDirectory() ? 'a directory' : 'not a regular file';
}

function lookUp(dir: string, file: string): Found {
  const parts = file.split('/');
  for (let end = 1; end < parts.length; end += 1) {
    const ancestor = parts.slice(0, end).join('/');
    const info = lstat(path.join(dir, ancestor));
    if (info === undefined) return { kind: 'missing' };
    if (info.isDirectory()) continue;
    if (info.isFile()) return { kind: 'under_file', ancestor };
    return { kind: 'refused', reason: `through ${JSON.stringify(ancestor)}, ${what(info)}` };
  }
  const info = lstat(path.join(dir, file));
  if (info === undefined) return { kind: 'missing' };
  if (!info.isFile()) return { kind: 'refused', reason: what(info) };
  return { kind: 'file', bytes: readNoFollow(path.join(dir, file)), mode: (info.mode & 0o111) === 0 ? 0o100644 : 0o100755 };
}

/**
 * What `dir` holds at each of `files`, walking each path one component at a time with lstat: a
 * symlink anywhere on the way is reported, never followed.
 */
export function lookUpDir(dir: string, files: readonly string[]): Map<string, Found> {
  return new Map(files.map((file) => [file, lookUp(dir, file)]));
}

/** The short name of what stopped a write: the OS error code, or what else it was. */
function whatStopped(error: unknown): string {
  if (error instanceof EscapeError) return 'a symlink, directory or file appeared on its way';
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'an error';
}

/** What admission did and did not do to `dir` before `failed` stopped it, path by path. */
function partial({
  runId,
  dir,
  done,
  failed,
  rest,
  error,
}: {
  runId: string;
  dir: string;
  done: readonly Change[];
  failed: Change;
  rest: readonly Change[];
  error: unknown;
}): AdmitError {
  const verb = (change: Change): string => (change.after === null ? 'deleted' : 'written');
  const before = done.length === 0 ? `nothing was changed before it` : `${done.length} path(s) were changed before it`;
  return new AdmitError({
    code: 'admit.partial',
    runId,
    headline: `run ${runId}: admission into ${dir} stopped at ${JSON.stringify(failed.file)} (${whatStopped(error)}); ${before}, ${rest.length + 1} were not`,
    problems: [
      ...done.map((change) => ({ file: change.file, reason: verb(change) })),
      { file: failed.file, reason: `not ${verb(failed)}: ${error instanceof Error ? error.message : String(error)}` },
      ...rest.map((change) => ({ file: change.file, reason: `not ${verb(change)} (not reached)` })),
    ],
    cause: error,
  });
}

/**
 * Applies `changes` to `dir`: deletions first (a deleted file may give way to a directory), then
 * writes, both refusing any symlink on the way. Each file is replaced whole (written aside, then
 * renamed), but the changes are not one transaction: an I/O error (ENOSPC, EACCES, EFBIG, …) or a
 * change made to `dir` since the check stops them at one path.
 * @throws {AdmitError} `admit.partial`, listing every path as changed, the one it stopped at (with the
 * error), or not reached.
 */
export function applyToDir({ runId, dir, changes }: { runId: string; dir: string; changes: readonly Change[] }): void {
  const ordered = [...changes.filter(({ after }) => after === null), ...changes.filter(({ after }) => after !== null)];
  for (const [index, change] of ordered.entries()) {
    try {
      if (change.after === null) removeInside(dir, change.file, { onObstacle: 'refuse' });
      else writeInside(dir, change.file, change.after, { onObstacle: 'refuse' });
    } catch (error) {
      throw partial({ runId, dir, done: ordered.slice(0, index), failed: change, rest: ordered.slice(index + 1), error });
    }
  }
}

/**
 * Makes the directory an admission writes files into when it does not exist yet (`mkdir -p`), and
 * returns the directories it created, outermost first. The part of the path that exists is the user's
 * and is taken as it is, a symlink to a directory included; each missing directory is created by a
 * plain mkdir, which never follows a symlink, so a dangling symlink on the way is refused rather than
 * having its target created. Inside the directory, writes refuse symlinks as always.
 * @throws {AdmitError} `admit.no_directory` when a part of the path is a file, a dangling symlink, or
 * cannot be created; what was created before is removed again.
 */
export function makeAdmitDir({ runId, dir }: { runId: string; dir: string }): string[] {
  const created: string[] = [];
  const refuse = (headline: string): never => {
    removeCreatedDirs(created);
    throw new AdmitError({ code: 'admit.no_directory', runId, headline });
  };
  const target = path.resolve(dir);
  const { root } = path.parse(target);
  let current = root;
  for (const part of target.slice(root.length).split(path.sep).filter(Boolean)) {
    current = path.join(current, part);
    const info = lstat(current);
    if (info === undefined) {
      try {
        mkdirSync(current, { mode: 0o755 });
      } catch (error) {
        refuse(`cannot create ${current} to admit into: ${whatStopped(error)}`);
      }
      created.push(current);
      continue;
    }
    const followed = info.isSymbolicLink() ? statSync(current, { throwIfNoEntry: false }) : info;
    if (followed === undefined)
      refuse(`cannot admit into ${target}: ${current} is a symlink to a missing target; nothing is created through it`);
    else if (!followed.isDirectory())
      refuse(`cannot admit into ${target}: ${current} is ${followed.isFile() ? 'a file' : 'not a directory'}`);
  }
  return created;
}

/**
 * Removes the directories {@link makeAdmitDir} created, innermost first, where they are still empty:
 * a refused admission leaves no trace, one that wrote files keeps them.
 */
export function removeCreatedDirs(created: readonly string[]): void {
  for (const dir of [...created].reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty (an admission wrote into it) or gone: either way it is not ours to remove.
      return;
    }
  }
}
