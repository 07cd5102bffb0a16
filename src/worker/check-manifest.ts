import path from 'node:path';
import { EscapeError } from '../errors/escape-error.js';
import { ignoreRule } from '../workspace/ignore.js';
import type { ManifestEntry } from '../workspace/manifest.js';

/** Whether a symlink at `file` pointing at `target` stays inside the tree (relative, resolving below the root). */
export function linkStaysInside(file: string, target: string): boolean {
  if (path.posix.isAbsolute(target) || target.includes('\0')) return false;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
  return resolved !== '..' && !resolved.startsWith('../') && resolved !== '.';
}

/**
 * Refuses a manifest that cannot be written back as it reads, with an {@link EscapeError} naming the
 * path: an entry naming `.git` or `.redline`, a symlink leading outside the tree, or a path through a
 * symlink or a file of the same manifest (`lnk -> sub` with `lnk/x.js`: written, the link would replace
 * the directory and `x.js` would be lost). `submit` checks the manifest it stores and the worker the one
 * it reads, so such a tree is refused on both sides and never run in part.
 */
export function checkManifest(manifest: readonly (readonly [string, ManifestEntry])[]): void {
  const ignored = ignoreRule();
  const notDirs = new Map(manifest.filter(([, entry]) => entry.type !== 'dir'));
  for (const [file, entry] of manifest) {
    if (ignored(file)) throw new EscapeError(file, `${JSON.stringify(file)} names .git or .redline; a submitted tree never holds them`);
    if (entry.type === 'symlink' && !linkStaysInside(file, entry.target))
      throw new EscapeError(file, `${JSON.stringify(file)} is a symlink to ${JSON.stringify(entry.target)}, outside the tree`);
    const parts = file.split('/');
    for (let depth = 1; depth < parts.length; depth += 1) {
      const above = parts.slice(0, depth).join('/');
      const found = notDirs.get(above);
      if (found !== undefined)
        throw new EscapeError(
          file,
          `${JSON.stringify(file)} goes through ${JSON.stringify(above)}, a ${found.type === 'symlink' ? 'symlink' : 'file'} of the same tree; nothing is written through it`,
        );
    }
  }
}
