import path from 'node:path';
import { normalPath } from '../core/candidate.js';
import type { IgnoreRule } from './ignore.js';
import type { Manifest } from './manifest.js';

/** Longest name of one path component most file systems take, in bytes. */
const NAME_MAX = 255;

/**
 * A path component as a case-insensitive, normalizing file system (macOS, Windows) may see it: NFC,
 * without the code points such file systems ignore, without trailing dots and spaces, lower-cased.
 * `.GIT`, `.git.` and `.g\u200cit` all name `.git` there.
 */
export function foldedName(part: string): string {
  return part
    .normalize('NFC')
    .replace(/[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\ufeff]/g, '')
    .replace(/[. ]+$/, (tail) => (tail.length === part.length ? tail : ''))
    .toLowerCase();
}

/** Why a proposed path is not a plain relative path, or undefined when it is. Needs no snapshot. */
export function malformedPath(file: string): string | undefined {
  if (file.length === 0) return 'an empty path';
  if (file.includes('\0')) return `a path with a NUL byte ${JSON.stringify(file)}`;
  if (path.isAbsolute(file) || /^[A-Za-z]:/.test(file) || file.startsWith('\\')) return `an absolute path ${JSON.stringify(file)}`;
  const normal = path.posix.normalize(file.replace(/\\/g, '/'));
  if (normal === '.' || normal === '..' || normal.startsWith('../')) return `a path leaving the workspace ${JSON.stringify(file)}`;
  if (normal.endsWith('/')) return `a directory path ${JSON.stringify(file)}`;
  const parts = normal.split('/');
  if (parts.some((part) => foldedName(part) === '.git')) return `a path inside .git ${JSON.stringify(file)}`;
  if (parts.some((part) => part === '__proto__')) return `a path with a component named __proto__ ${JSON.stringify(file)}`;
  if (parts.some((part) => Buffer.byteLength(part) > NAME_MAX))
    return `a path with a component longer than ${NAME_MAX} bytes ${JSON.stringify(`${file.slice(0, 80)}…`)}`;
  return undefined;
}

/**
 * Why a candidate path may not be written on top of the snapshot, or undefined when it may. A path is
 * refused when it is malformed, ignored, names a directory or a symlink of the snapshot, or leads
 * through a symlink, through a file the candidate keeps, or through another file the candidate writes.
 * Checked for every path of a candidate before any of it is written anywhere.
 */
export function candidatePathProblem(
  file: string,
  files: Readonly<Record<string, string | null>>,
  manifest: Manifest,
  ignored: IgnoreRule,
): string | undefined {
  const malformed = malformedPath(file);
  if (malformed !== undefined) return malformed;
  if (normalPath(file) !== file) return `a path not in normal form ${JSON.stringify(file)} (${JSON.stringify(normalPath(file))})`;
  if (ignored(file)) return `an ignored path ${JSON.stringify(file)}`;
  const entry = manifest.get(file);
  if (entry?.type === 'dir') return `a directory ${JSON.stringify(file)}`;
  if (entry?.type === 'symlink') return `a symlink ${JSON.stringify(file)} (to ${JSON.stringify(entry.target)})`;
  const parts = file.split('/');
  for (let end = 1; end < parts.length; end += 1) {
    const ancestor = parts.slice(0, end).join('/');
    const above = manifest.get(ancestor);
    if (above?.type === 'symlink') return `a path through the symlink ${JSON.stringify(ancestor)} (to ${JSON.stringify(above.target)})`;
    if (above?.type === 'file' && files[ancestor] !== null) return `a path under the file ${JSON.stringify(ancestor)}`;
    if (typeof files[ancestor] === 'string') return `a path under the proposed file ${JSON.stringify(ancestor)}`;
  }
  return undefined;
}
