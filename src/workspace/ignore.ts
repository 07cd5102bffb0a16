import picomatch from 'picomatch';

/**
 * Never part of a snapshot, at any depth: version-control data and redline's own records. Dependency
 * folders such as `node_modules` are not in this list: they are part of the snapshot and of every copy.
 */
export const ALWAYS_IGNORED: readonly string[] = Object.freeze(['.git', '.redline']);

/** Decides which relative paths a snapshot leaves out; an ignored directory is left out whole. */
export type IgnoreRule = (file: string) => boolean;

/**
 * The ignored set: every path with a component in {@link ALWAYS_IGNORED}, plus the mission's `ignore`
 * globs (picomatch syntax, matched against the path relative to the workspace, dot files included).
 * @example ignoreRule(['dist/**', '*.log'])('dist/app.js') // true
 */
export function ignoreRule(globs: readonly string[] = []): IgnoreRule {
  const matches = globs.length === 0 ? () => false : picomatch([...globs], { dot: true });
  return (file) => {
    for (const part of file.split('/')) if (ALWAYS_IGNORED.includes(part)) return true;
    return matches(file);
  };
}
