import picomatch from 'picomatch';
import { foldedName } from './path-rules.js';

/**
 * Never part of a snapshot, at any depth: version-control data and redline's own records. Dependency
 * folders such as `node_modules` are not in this list: they are part of the snapshot and of every copy.
 */
export const ALWAYS_IGNORED: readonly string[] = Object.freeze(['.git', '.redline']);

/** Plain ASCII names without trailing dots or spaces fold by lower-casing alone (the common case, kept cheap). */
const PLAIN = /^[\x21-\x7e]*[\x21-\x2d\x2f-\x7e]$/;

function alwaysIgnored(part: string): boolean {
  return ALWAYS_IGNORED.includes(PLAIN.test(part) ? part.toLowerCase() : foldedName(part));
}

/** Decides which relative paths a snapshot leaves out; an ignored directory is left out whole. */
export type IgnoreRule = (file: string) => boolean;

/**
 * The ignored set: every path with a component in {@link ALWAYS_IGNORED} (compared as a case-insensitive
 * file system would: `.GIT` is `.git`), plus the mission's `ignore` globs (picomatch syntax, dot files
 * included), matched against the path relative to the workspace and against each of its parent
 * directories: `vendor` ignores `vendor/a.js`; `*.log` matches at the top only, `**\/*.log` at any depth.
 * @example ignoreRule(['dist', '**\/*.log'])('dist/app.js') // true
 */
export function ignoreRule(globs: readonly string[] = []): IgnoreRule {
  const matches = globs.length === 0 ? () => false : picomatch([...globs], { dot: true });
  return (file) => {
    const parts = file.split('/');
    for (const part of parts) if (alwaysIgnored(part)) return true;
    if (globs.length === 0) return false;
    for (let end = 1; end <= parts.length; end += 1) if (matches(parts.slice(0, end).join('/'))) return true;
    return false;
  };
}
