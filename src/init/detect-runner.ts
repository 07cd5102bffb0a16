import type { RepoFiles } from './repo-files.js';
import { scriptCommands, withoutOptions, type ScriptCommand } from './script-commands.js';

/** The test runners `redline init` knows. */
export type RunnerId = 'node-test' | 'vitest' | 'jest' | 'mocha' | 'ava' | 'tape' | 'tap' | 'pytest';

/** A test runner found in a repository, and the demand check that runs its suite with a report redline reads. */
export interface DetectedRunner {
  readonly runner: RunnerId;
  /** What to call it, with its version when known: `vitest 3.2.4`, `jest ^29.7.0 (declared)`. */
  readonly label: string;
  /** Why it was detected: `package.json devDependencies`, `vitest.config.ts`, `vite.config.ts test:`, `scripts.test`… */
  readonly evidence: readonly string[];
  /** The check's command, run by `/bin/sh -c` in the check's copy. */
  readonly command: string;
  readonly format: 'junit' | 'tap';
  /** `$REDLINE_REPORT` when the runner writes its report to a file; stdout otherwise. */
  readonly reportFile?: '$REDLINE_REPORT';
  /** Comment lines the mission gives the check: a package the reporter needs, what the command keeps of the script. */
  readonly notes: readonly string[];
}

export interface DetectRunnersOptions {
  readonly files: RepoFiles;
  /** `python3 -m pytest --version`'s answer here (`pytest 8.3.2`), or undefined when it does not run. */
  readonly pytest?: string | undefined;
  /** The version of node the checks will run (`process.version`). */
  readonly nodeVersion?: string;
}

type PackageJson = {
  scripts?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
} & Record<string, unknown>;

const NPM_RUNNERS = ['vitest', 'jest', 'mocha', 'ava', 'tape', 'tap'] as const;
type NpmRunner = (typeof NPM_RUNNERS)[number];

/** Config files (at the root) and package.json keys that name each runner. */
const CONFIGS: Readonly<Record<NpmRunner, { readonly files: RegExp; readonly key?: string }>> = {
  vitest: { files: /^vitest\.(config|workspace)\.[cm]?[jt]s$/ },
  jest: { files: /^jest\.config\.([cm]?[jt]s|json)$/, key: 'jest' },
  mocha: { files: /^\.mocharc(\.(c?js|jsonc?|ya?ml))?$/, key: 'mocha' },
  ava: { files: /^ava\.config\.[cm]?js$/, key: 'ava' },
  tape: { files: /^$/ },
  tap: { files: /^\.taprc$/, key: 'tap' },
};

/** Vite's config file, where vitest's own settings may live under a `test` key. */
const VITE_CONFIG = /^vite\.config\.[cm]?[jt]s$/;
/** A `test:` key (`test: {`, `"test": {`), outside a line comment; text in strings or block comments may still pass. */
const TEST_KEY = /^(?:(?!\/\/).)*?(?<![\w$.])(['"]?)test\1\s*:\s*[{(\w]/m;

const TEST_DIRS = new Set(['test', 'tests', '__tests__', 'spec']);
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.redline', 'dist', 'build', 'coverage']);
const JS_TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$|^test[-_.].*\.[cm]?[jt]s$|[-_]test\.[cm]?[jt]s$/;
const PY_TEST_FILE = /^test_.*\.py$|_test\.py$/;

function parsePackage(text: string | undefined): PackageJson | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as PackageJson) : undefined;
  } catch {
    return undefined;
  }
}

/** Test-looking files of the repository, at most `limit`, breadth first: a test folder's files, and `*.test.*` files anywhere. */
export function testFiles(files: RepoFiles, limit = 200): string[] {
  const found: string[] = [];
  const queue: { dir: string; inTests: boolean }[] = [{ dir: '', inTests: false }];
  for (let next = queue.shift(); next !== undefined && found.length < limit; next = queue.shift()) {
    for (const entry of files.list(next.dir)) {
      const file = next.dir === '' ? entry.name : `${next.dir}/${entry.name}`;
      if (entry.directory) {
        if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.'))
          queue.push({ dir: file, inTests: next.inTests || TEST_DIRS.has(entry.name) });
      } else if (
        (next.inTests && /\.([cm]?[jt]sx?|py)$/.test(entry.name)) ||
        JS_TEST_FILE.test(entry.name) ||
        PY_TEST_FILE.test(entry.name)
      )
        found.push(file);
    }
  }
  return found;
}

/** The installed version of an npm package (its package.json under node_modules), else the range package.json declares. */
function npmVersion(files: RepoFiles, pkg: PackageJson, name: string): string | undefined {
  const installed = parsePackage(files.read(`node_modules/${name}/package.json`))?.version;
  if (typeof installed === 'string') return installed;
  const declared = pkg.devDependencies?.[name] ?? pkg.dependencies?.[name];
  return typeof declared === 'string' ? `${declared} (declared)` : undefined;
}

const bin = (name: string): string => `node_modules/.bin/${name}`;
const joined = (words: readonly string[]): string => words.filter((word) => word !== '').join(' ');

/** The check command for a runner, keeping what the test script passes it (files, config) but its reporter and watch options. */
function commandFor(
  runner: NpmRunner | 'node-test',
  script: ScriptCommand | undefined,
  hasPackage: (name: string) => boolean,
): Pick<DetectedRunner, 'command' | 'format' | 'reportFile' | 'notes'> {
  const args = script?.args ?? [];
  const kept = script === undefined ? [] : [`keeps the arguments of the test script (${script.bin} ${script.args.join(' ')})`.trimEnd()];
  switch (runner) {
    case 'node-test': {
      const rest = withoutOptions(withoutOptions(args, ['--test-reporter', '--test-reporter-destination']), ['--watch'], false);
      return {
        command: joined([
          'node',
          '--test-reporter=junit',
          '--test-reporter-destination=$REDLINE_REPORT',
          ...(rest.includes('--test') ? [] : ['--test']),
          ...rest,
        ]),
        format: 'junit',
        reportFile: '$REDLINE_REPORT',
        notes: kept,
      };
    }
    case 'vitest': {
      const rest = withoutOptions(withoutOptions(args, ['--reporter', '--outputFile']), ['--watch', 'watch', 'run', 'dev'], false);
      return {
        command: joined([bin('vitest'), 'run', '--reporter=junit', '--outputFile=$REDLINE_REPORT', ...rest]),
        format: 'junit',
        reportFile: '$REDLINE_REPORT',
        notes: kept,
      };
    }
    case 'jest': {
      const rest = withoutOptions(withoutOptions(args, ['--reporters']), ['--watch', '--watchAll'], false);
      const needs = hasPackage('jest-junit')
        ? []
        : ['jest writes no JUnit or TAP report by itself: this reporter needs jest-junit (npm install --save-dev jest-junit@16)'];
      return {
        command: joined(['JEST_JUNIT_OUTPUT_FILE=$REDLINE_REPORT', bin('jest'), '--ci', '--reporters=jest-junit', ...rest]),
        format: 'junit',
        reportFile: '$REDLINE_REPORT',
        notes: [...needs, ...kept],
      };
    }
    case 'mocha':
      return {
        command: joined([bin('mocha'), '--reporter', 'tap', ...withoutOptions(args, ['--reporter', '-R', '--reporter-option', '-O'])]),
        format: 'tap',
        notes: kept,
      };
    case 'ava':
      return {
        command: joined([bin('ava'), '--tap', ...withoutOptions(args, ['--watch', '-w', '--tap', '-t', '--verbose', '-v'], false)]),
        format: 'tap',
        notes: kept,
      };
    case 'tape':
      return { command: joined([bin('tape'), ...(args.length === 0 ? ["'test/**/*.js'"] : args)]), format: 'tap', notes: kept };
    case 'tap':
      return { command: joined([bin('tap'), '--reporter=tap', ...withoutOptions(args, ['--reporter', '-R'])]), format: 'tap', notes: kept };
  }
}

const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);

/**
 * The programs the `test` script runs, following `npm run X` (and pnpm's, yarn's, bun's) into script X,
 * at most three scripts deep; `yarn X` of no script X is the program X.
 */
function testCommands(scripts: Record<string, unknown>, name = 'test', depth = 3): ScriptCommand[] {
  const script = scripts[name];
  if (typeof script !== 'string' || depth === 0) return [];
  return scriptCommands(script).flatMap((command) => {
    if (!PACKAGE_MANAGERS.has(command.bin)) return [command];
    const run = command.args[0] === 'run' || command.args[0] === 'run-script';
    const [target, ...rest] = command.args.slice(run ? 1 : 0);
    if (target === undefined || target === 'test') return [];
    // `yarn vitest run`, `pnpm jest`: a package's program, when no script has that name.
    if (typeof scripts[target] !== 'string') return run ? [] : [{ bin: target, args: rest }];
    return testCommands(scripts, target, depth - 1);
  });
}

/**
 * The test runners of a repository, the one its `test` script runs first: npm runners from package.json
 * (its `test` script, dependencies and config keys) and their config files, node's own runner from the
 * script or a test file importing `node:test`, pytest from its config files or `test_*.py` files.
 * @example
 * detectRunners({ files: memoryFiles({ 'package.json': '{"devDependencies":{"vitest":"^3.2.0"}}' }) });
 * // [{ runner: 'vitest', label: 'vitest ^3.2.0 (declared)', command: 'node_modules/.bin/vitest run --reporter=junit …', … }]
 */
export function detectRunners({ files, pytest, nodeVersion = process.version }: DetectRunnersOptions): DetectedRunner[] {
  const pkg = parsePackage(files.read('package.json'));
  const root = files.list('');
  const evidence = new Map<RunnerId, string[]>();
  const scripts = new Map<RunnerId, ScriptCommand>();
  const note = (runner: RunnerId, why: string): void => void evidence.set(runner, [...(evidence.get(runner) ?? []), why]);

  for (const command of testCommands(pkg?.scripts ?? {})) {
    const runner: RunnerId | undefined =
      command.bin === 'node' && command.args.includes('--test')
        ? 'node-test'
        : (NPM_RUNNERS as readonly string[]).includes(command.bin)
          ? (command.bin as NpmRunner)
          : command.bin === 'pytest' || (command.bin.startsWith('python') && command.args.join(' ').startsWith('-m pytest'))
            ? 'pytest'
            : undefined;
    if (runner === undefined || scripts.has(runner)) continue;
    scripts.set(runner, command);
    note(runner, 'package.json scripts.test');
  }
  const hasPackage = (name: string): boolean =>
    pkg !== undefined && (Object.hasOwn(pkg.devDependencies ?? {}, name) || Object.hasOwn(pkg.dependencies ?? {}, name));
  for (const runner of NPM_RUNNERS) {
    if (pkg !== undefined && hasPackage(runner)) note(runner, 'package.json dependencies');
    const config = CONFIGS[runner];
    if (config.key !== undefined && pkg !== undefined && Object.hasOwn(pkg, config.key)) note(runner, `package.json "${config.key}"`);
    for (const entry of root) if (!entry.directory && config.files.test(entry.name)) note(runner, entry.name);
  }
  // A vite project may set vitest up in vite.config alone, vitest itself installed only as another package's dependency.
  for (const entry of root)
    if (!entry.directory && VITE_CONFIG.test(entry.name) && TEST_KEY.test(files.read(entry.name) ?? ''))
      note('vitest', `${entry.name} test:`);
  const tests = testFiles(files);
  const nodeTest = tests.find((file) => /\.[cm]?[jt]s$/.test(file) && /(['"])node:test\1/.test(files.read(file) ?? ''));
  if (nodeTest !== undefined) note('node-test', `${nodeTest} imports node:test`);

  const pyConfig = [
    ...(files.read('pytest.ini') === undefined ? [] : ['pytest.ini']),
    ...(files.read('conftest.py') === undefined ? [] : ['conftest.py']),
    ...(/\[tool\.pytest/.test(files.read('pyproject.toml') ?? '') ? ['pyproject.toml [tool.pytest…]'] : []),
    ...(/\[tool:pytest\]/.test(files.read('setup.cfg') ?? '') ? ['setup.cfg [tool:pytest]'] : []),
    ...(/\[pytest\]/.test(files.read('tox.ini') ?? '') ? ['tox.ini [pytest]'] : []),
  ];
  const pyTest = tests.find((file) => PY_TEST_FILE.test(file.split('/').at(-1) as string));
  for (const why of [...pyConfig, ...(pyTest === undefined ? [] : [`${pyTest}`])]) note('pytest', why);

  const order: RunnerId[] = [
    ...scripts.keys(),
    ...(['node-test', ...NPM_RUNNERS, 'pytest'] as RunnerId[]).filter((id) => !scripts.has(id)),
  ];
  return order
    .filter((runner) => evidence.has(runner))
    .map((runner): DetectedRunner => {
      const why = evidence.get(runner) ?? [];
      if (runner === 'pytest')
        return {
          runner,
          label: pytest ?? 'pytest',
          evidence: why,
          command: 'python3 -m pytest -q -p no:cacheprovider --junitxml=$REDLINE_REPORT',
          format: 'junit',
          reportFile: '$REDLINE_REPORT',
          notes: pytest === undefined ? ['`python3 -m pytest` does not run here: install pytest (python3 -m pip install pytest)'] : [],
        };
      const label =
        runner === 'node-test'
          ? `node:test (node ${nodeVersion.replace(/^v/, '')})`
          : `${runner}${((version) => (version === undefined ? '' : ` ${version}`))(npmVersion(files, pkg ?? {}, runner))}`;
      return { runner, label, evidence: why, ...commandFor(runner, scripts.get(runner), hasPackage) };
    });
}
