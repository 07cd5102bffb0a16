import type { RepoFiles } from './repo-files.js';

/** The scope a mission gets from a repository's layout, and what the mission says of it. */
export interface LayoutScope {
  readonly scope: readonly string[];
  /** A comment line for the mission when the scope is a guess that needs a look. */
  readonly note?: string;
}

const SOURCE_DIRS = ['src', 'lib', 'app', 'source', 'pkg'];
const NOT_SOURCE = new Set([
  'test',
  'tests',
  '__tests__',
  'spec',
  'e2e',
  'fixtures',
  'node_modules',
  'dist',
  'build',
  'coverage',
  'docs',
  'examples',
  'scripts',
  'venv',
]);
const SOURCE_FILE = /\.([cm]?[jt]sx?|py)$/;
/** Test files and test configuration, by name: never part of the scope. */
const TEST_NAME = /\.(test|spec)\.[^/]+$|^test[-_.][^/]*$|[-_]test\.[^/]+$|^conftest\.py$/;
const CONFIG_NAME = /\.config\.[cm]?[jt]s$|^\.|^(setup|noxfile)\.py$|^(Gruntfile|Gulpfile|gulpfile)\.[cm]?js$/;
/** Under a source folder: every file but test files (co-located tests stay out of the scope). */
const NOT_TESTS = '!(*.test.*|*.spec.*|test_*.py|*_test.py|conftest.py)';

/** Whether a folder holds test files or test folders, at any depth (bounded). */
function holdsTests(files: RepoFiles, dir: string, depth = 6): boolean {
  if (depth === 0) return false;
  return files
    .list(dir)
    .some((entry) =>
      entry.directory
        ? entry.name === '__tests__' ||
          entry.name === 'test' ||
          entry.name === 'tests' ||
          holdsTests(files, `${dir}/${entry.name}`, depth - 1)
        : TEST_NAME.test(entry.name),
    );
}

/**
 * The paths a candidate may change: the repository's source folders (`src/**`, `lib/**`, a Python package
 * with an `__init__.py`), without the test files in them; else its top-level source files by name. Never
 * the tests, test folders or a runner's config file.
 * @example
 * scopeFromLayout(memoryFiles({ 'src/add.js': '', 'src/add.test.js': '', 'vitest.config.ts': '' }));
 * // { scope: ['src/**\/!(*.test.*|*.spec.*|test_*.py|*_test.py|conftest.py)'] }
 */
export function scopeFromLayout(files: RepoFiles): LayoutScope {
  const root = files.list('');
  const dirs = root
    .filter((entry) => entry.directory && !entry.name.startsWith('.') && !NOT_SOURCE.has(entry.name))
    .map((entry) => entry.name)
    .filter((name) => SOURCE_DIRS.includes(name) || (files.read(`${name}/__init__.py`) !== undefined && !/^tests?$/.test(name)));
  const shadowed = new Set(dirs.filter((name) => dirs.some((other) => name !== other && name.startsWith(`${other}/`))));
  const scope = dirs
    .filter((name) => !shadowed.has(name))
    .map((name) => (holdsTests(files, name) ? `${name}/**/${NOT_TESTS}` : `${name}/**`));
  if (scope.length > 0) return { scope };
  const sources = root
    .filter((entry) => !entry.directory && SOURCE_FILE.test(entry.name) && !TEST_NAME.test(entry.name) && !CONFIG_NAME.test(entry.name))
    .map((entry) => entry.name);
  if (sources.length > 0)
    return {
      scope: sources,
      note: 'no source folder (src/, lib/, …): the scope names the top-level source files; add a glob for any file a task may create',
    };
  return {
    scope: ['src/**'],
    note: 'no source files found: the scope is src/**, where a task would add them; change it to where the code lives',
  };
}
