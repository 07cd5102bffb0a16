import path from 'node:path';
import type { IgnoreRule } from './ignore.js';
import type { Manifest } from './manifest.js';

/** Why a proposed path is not a plain relative path, or undefined when it is. Needs no snapshot. */
export function malformedPath(file: string): string | undefined {
  if (file.length === 0) return 'an empty path';
  if (file.includes('\0')) return `a path with a NUL byte ${JSON.stringify(file)}`;
  if (path.isAbsolute(file) || /^[A-Za-z]:/.test(file) || file.startsWith('\\')) return `an absolute path ${JSON.stringify(file)}`;
  const normal = path.posix.normalize(file.replace(/\\/g, '/'));
  if (normal === '.' || normal === '..' || normal.startsWith('../')) return `a path leaving the workspace ${JSON.stringify(file)}`;
  if (normal.endsWith('/')) return `a directory path ${JSON.stringify(file)}`;
  if (normal.split('/').includes('.git')) return `a path inside .git ${JSON.stringify(file)}`;
  return undefined;
}

/** The normal form every candidate path is kept in: POSIX separators, no `.` or empty segments. */
export function normalPath(file: string): string {
  return path.posix.normalize(file.replace(/\\/g, '/'));
}

/**
 * Why a candidate path may not be written on top of the snapshot, or undefined when it may. A path is
 * refused when it is malformed, ignored, names a directory or a symlink of the snapshot, or leads
 * through a symlink, through a file the candidate keeps, or through another file the candidate writes.
 * Checked for every path of a candidate before any of it is written anywhere.
 */
export function candidatePathProblem(file: string, files: Readonly<Record<string, string | null>>, manifest: Manifest, ignored: IgnoreRule): string | undefined {
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
