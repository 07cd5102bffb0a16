import type { RepoFiles } from './repo-files.js';

/** The format check a mission without a test runner gets: a build, a linter or a syntax check. */
export interface FormatCheck {
  readonly command: string;
  /** Where the command comes from, for the mission's comment. */
  readonly why: string;
}

/**
 * A format check from what the repository has: its `lint`, `build` or `typecheck` script, TypeScript's
 * compiler over its tsconfig.json, or a syntax check of its Python or JavaScript files (in `dirs`, the scope's
 * folders, else all of them); `true` with a note when there is nothing to check.
 */
export function formatCheckFor(files: RepoFiles, dirs: readonly string[]): FormatCheck {
  let scripts: Record<string, unknown> = {};
  try {
    const pkg: unknown = JSON.parse(files.read('package.json') ?? '{}');
    if (typeof pkg === 'object' && pkg !== null && 'scripts' in pkg && typeof pkg.scripts === 'object' && pkg.scripts !== null)
      scripts = pkg.scripts as Record<string, unknown>;
  } catch {
    scripts = {};
  }
  for (const name of ['typecheck', 'lint', 'build'])
    if (typeof scripts[name] === 'string') return { command: `npm run --silent ${name}`, why: `package.json scripts.${name}` };
  if (files.read('tsconfig.json') !== undefined && files.read('node_modules/typescript/package.json') !== undefined)
    return { command: 'node_modules/.bin/tsc --noEmit -p tsconfig.json', why: 'tsconfig.json' };
  const where = dirs.length === 0 ? '.' : dirs.join(' ');
  const names = [...files.list(''), ...dirs.flatMap((dir) => files.list(dir))].map((entry) => entry.name);
  const has = (pattern: RegExp): boolean => names.some((name) => pattern.test(name));
  if (has(/\.py$/)) return { command: `python3 -m compileall -q ${where}`, why: 'Python sources: a syntax check' };
  if (has(/\.[cm]?js$/))
    return {
      command: `find ${where} -name node_modules -prune -o -name '*.js' -print | xargs -n1 node --check`,
      why: 'JavaScript sources: a syntax check',
    };
  return { command: 'true', why: 'nothing to check was found: replace it with your build or lint command' };
}
