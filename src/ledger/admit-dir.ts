import { lstatSync, type Stats } from 'node:fs';
import path from 'node:path';
import { EscapeError, readNoFollow, removeInside, writeInside } from '../workspace/safe-fs.js';
import { AdmitError } from './admit-error.js';
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

/**
 * Applies `changes` to `dir`: deletions first (a deleted file may give way to a directory), then
 * writes, both refusing any symlink on the way. Only a change made to `dir` between the check and the
 * write can stop it halfway; it is reported as the path it stopped at.
 */
export function applyToDir({ runId, dir, changes }: { runId: string; dir: string; changes: readonly Change[] }): void {
  try {
    for (const { file, after } of changes) if (after === null) removeInside(dir, file, { onObstacle: 'refuse' });
    for (const { file, after } of changes) if (after !== null) writeInside(dir, file, after, { onObstacle: 'refuse' });
  } catch (error) {
    if (!(error instanceof EscapeError)) throw error;
    throw new AdmitError({ code: 'admit.bad_path', runId, headline: `run ${runId}: ${dir} changed while admitting; stopped at a symlink or directory`, problems: [{ file: error.file, reason: error.message }] });
  }
}
