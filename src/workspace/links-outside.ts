import path from 'node:path';
import type { Manifest } from './manifest.js';

/** Paths of links outside the workspace named in a record; the count says how many there were. */
const LISTED = 20;

/**
 * The snapshot's symlinks whose target lies outside the workspace (absolute, or leading up out of it).
 * Copies keep them as they are, so a program that writes through one writes outside its copy unless
 * the mission's sandbox makes the target read-only; the run records them at its start.
 */
export function linksOutside(manifest: Manifest): { linksOutside?: { count: number; paths: string[] } } {
  const found: string[] = [];
  for (const [file, entry] of manifest) {
    if (entry.type !== 'symlink') continue;
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), entry.target));
    if (path.posix.isAbsolute(entry.target) || resolved === '..' || resolved.startsWith('../')) found.push(file);
  }
  found.sort();
  return found.length === 0 ? {} : { linksOutside: { count: found.length, paths: found.slice(0, LISTED) } };
}
