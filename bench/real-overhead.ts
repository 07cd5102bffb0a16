// `real-overhead`: what `redline run` adds to the work it runs, on a real repository (qs 6.14.0 from the npm
// registry, its own tape suite) and on a generated tree of 22,000 files: the wall time of the built CLI from
// start to exit, next to the same proposer and test commands run by hand in the same sequence.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate, type TreeSize } from './workspace.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'bin/redline.js');
const QS_VERSION = '6.14.0';

/** Where downloaded repositories are kept between runs: `$REDLINE_BENCH_CACHE`, else `~/.cache/redline-bench`. */
export function benchCache(): string {
  return process.env.REDLINE_BENCH_CACHE ?? path.join(os.homedir(), '.cache', 'redline-bench');
}

/** A repository with a seeded bug, the command that tests it and the line a scripted proposer rewrites. */
export interface Subject {
  readonly name: string;
  /** Files in the repository (node_modules included), for the table. */
  readonly files: number;
  /** The repository, with the bug seeded. */
  readonly dir: string;
  readonly test: string;
  /** The file the proposer edits, relative to the repository. */
  readonly file: string;
  /** The buggy line as seeded, a wrong fix (attempt 1) and the right one (attempt 2). */
  readonly seeded: string;
  readonly wrong: string;
  readonly right: string;
}

export interface OverheadRow {
  readonly subject: string;
  readonly files: number;
  /** 1 for the first run on the repository, 2 for the second, and so on. */
  readonly run: number;
  readonly redlineMs: number;
  /**
   * redline's own time: its wall time less the work its records account for (each check's and each
   * proposer run's duration). Unlike the overhead, it does not move with the tests' own run-to-run spread.
   */
  readonly ownMs: number;
  readonly byHandMs: number;
  readonly overheadMs: number;
  readonly ratio: number;
  /** redline's own time per attempt: from the previous decision to the attempt's record, less the proposer's and the checks' time. */
  readonly perAttemptMs: readonly number[];
  /** Where more goes: spawn to the `run.started` record, the seal's record to exit. */
  readonly phasesMs: Phases;
  /**
   * The first run's reference (empty on later runs): `cp -r` of the repository on the same file system,
   * right before and right after the first run, both copies kept until the repository's runs are done.
   */
  readonly copiesMs: readonly number[];
}

export interface Phases {
  readonly start: number;
  readonly exit: number;
}

export interface RealOverheadResult {
  readonly rows: readonly OverheadRow[];
  /** Subjects not measured, and why. */
  readonly skipped: readonly string[];
  readonly load: { readonly before: number; readonly after: number };
  /** Seconds outside the measurement: installing qs (0 when cached), generating the tree. */
  readonly setupSeconds: { readonly qs?: number; readonly tree: number };
}

/** Runs `command` under /bin/sh in `cwd`; its exit code and wall milliseconds. */
function sh(command: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; ms: number; output: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, ms: performance.now() - started, output }));
  });
}

/**
 * The dev dependencies qs's tests require (the others build, lint and publish it; one of them, through
 * its own dependencies, fetches from GitHub, which a registry-only machine cannot reach).
 */
const QS_TEST_DEPENDENCIES = [
  'es-value-fixtures',
  'for-each',
  'has-bigints',
  'has-override-mistake',
  'has-property-descriptors',
  'has-proto',
  'has-symbols',
  'iconv-lite',
  'mock-property',
  'object-inspect',
  'safer-buffer',
  'tape',
];

/**
 * qs from the npm registry with the dev dependencies its tests require (at the ranges its package.json
 * gives), kept in the bench cache: installed once, in a partial folder renamed into place only when the
 * install succeeded. Undefined when not cached and `install` is false.
 */
export function qsPackage(install: boolean): string | undefined {
  const dir = path.join(benchCache(), `qs-${QS_VERSION}`);
  if (existsSync(path.join(dir, 'node_modules', 'tape'))) return dir;
  if (!install) return undefined;
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  try {
    const tarball = execFileSync('npm', ['pack', `qs@${QS_VERSION}`, '--silent', '--pack-destination', partial], {
      encoding: 'utf8',
    }).trim();
    execFileSync('tar', ['xzf', path.join(partial, tarball), '-C', partial, '--strip-components=1']);
    rmSync(path.join(partial, tarball));
    const manifest = JSON.parse(readFileSync(path.join(partial, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    manifest.devDependencies = Object.fromEntries(
      Object.entries(manifest.devDependencies).filter(([name]) => QS_TEST_DEPENDENCIES.includes(name)),
    );
    writeFileSync(path.join(partial, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', '--loglevel=error'], {
      cwd: partial,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return dir;
}

const countFiles = (dir: string): number =>
  Number(execFileSync('sh', ['-c', 'find . -type f | wc -l'], { cwd: dir, encoding: 'utf8' }).trim());

/** A copy of the cached qs with `+` no longer decoded as a space: tape's parse tests fail. */
export function qsSubject(cached: string, root: string): Subject {
  const dir = path.join(root, 'qs');
  execFileSync('cp', ['-a', cached, dir]);
  const right = "    var strWithoutPlus = str.replace(/\\+/g, ' ');";
  const subject = {
    name: `qs ${QS_VERSION} (tape)`,
    files: countFiles(dir),
    dir,
    test: "node node_modules/tape/bin/tape 'test/**/*.js'",
    file: 'lib/utils.js',
    seeded: '    var strWithoutPlus = str;',
    wrong: "    var strWithoutPlus = str.replace('+', ' ');",
    right,
  };
  seed(subject, right);
  return subject;
}

/** The generated tree (sources and node_modules) with a small module, its TAP test and a seeded bug. */
export function treeSubject(size: TreeSize, root: string): Subject {
  const dir = path.join(root, 'tree');
  generate(dir, size);
  rmSync(path.join(dir, '.git'), { recursive: true, force: true });
  mkdirSync(path.join(dir, 'lib'), { recursive: true });
  const right = "exports.decode = (text) => text.replace(/\\+/g, ' ');";
  writeFileSync(path.join(dir, 'lib/plus.js'), `${right}\n`);
  writeFileSync(
    path.join(dir, 'check.js'),
    [
      "const { decode } = require('./lib/plus.js');",
      "const cases = [['a+b', 'a b'], ['a+b+c', 'a b c'], ['plain', 'plain']];",
      "console.log('TAP version 13');",
      'console.log(`1..${cases.length}`);',
      'let failed = 0;',
      'cases.forEach(([input, expected], index) => {',
      '  const ok = decode(input) === expected;',
      '  if (!ok) failed += 1;',
      "  console.log(`${ok ? 'ok' : 'not ok'} ${index + 1} - decode ${input}`);",
      '});',
      'process.exitCode = failed === 0 ? 0 : 1;',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "commonjs" }\n');
  const subject = {
    name: 'generated tree',
    files: 0,
    dir,
    test: 'node check.js',
    file: 'lib/plus.js',
    seeded: 'exports.decode = (text) => text;',
    wrong: "exports.decode = (text) => text.replace('+', ' ');",
    right,
  };
  seed(subject, right);
  return { ...subject, files: countFiles(dir) };
}

/** Puts the seeded line in place of `from`. */
function seed(subject: Pick<Subject, 'dir' | 'file' | 'seeded'>, from: string): void {
  const file = path.join(subject.dir, subject.file);
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`real-overhead: ${subject.file} does not hold the line to seed`);
  writeFileSync(file, text.replace(from, subject.seeded));
}

/** The scripted proposer: rewrites the seeded line, wrongly at attempt 1 and rightly from attempt 2 (`$REDLINE_ATTEMPT`). */
export function writeProposer(subject: Subject, file: string): void {
  const lines = [subject.seeded, subject.wrong, subject.right];
  writeFileSync(
    file,
    [
      "const fs = require('node:fs');",
      `const file = ${JSON.stringify(subject.file)};`,
      `const [seeded, wrong, right] = ${JSON.stringify(lines)};`,
      "const next = process.env.REDLINE_ATTEMPT === '1' ? wrong : right;",
      "let text = fs.readFileSync(file, 'utf8');",
      'for (const line of [seeded, wrong, right]) text = text.replace(line, next);',
      'fs.writeFileSync(file, text);',
      '',
    ].join('\n'),
  );
}

export function writeMission(subject: Subject, file: string, proposer: string): void {
  const mission = {
    id: `real-overhead-${path.basename(subject.dir)}`,
    goal: 'Decode + as a space again.',
    workspace: subject.dir,
    scope: [subject.file],
    budgets: { maxAttempts: 3 },
    checks: [{ name: 'tests', kind: 'test-runner', format: 'tap', command: subject.test, timeout: '5m' }],
    proposer: { kind: 'agent', command: `node ${proposer}` },
  };
  writeFileSync(file, JSON.stringify(mission, null, 2));
}

/** Baseline test, proposer attempt 1, test, proposer attempt 2, test: by hand in the repository, then the seeded line back. */
async function byHand(subject: Subject, proposer: string): Promise<number> {
  const started = performance.now();
  const codes: number[] = [];
  codes.push((await sh(subject.test, subject.dir)).code);
  for (const attempt of [1, 2]) {
    const proposed = await sh(`node ${proposer}`, subject.dir, { ...process.env, REDLINE_ATTEMPT: String(attempt) });
    if (proposed.code !== 0) throw new Error(`real-overhead: the proposer failed by hand: ${proposed.output}`);
    codes.push((await sh(subject.test, subject.dir)).code);
  }
  const ms = performance.now() - started;
  seed(subject, subject.right);
  if (codes[0] === 0 || codes[1] === 0 || codes[2] !== 0)
    throw new Error(`real-overhead: by hand on ${subject.name} the tests exited ${codes.join(', ')} (expected fail, fail, pass)`);
  return ms;
}

interface LedgerLine {
  readonly type?: string;
  readonly body?: string;
}

/** redline's own time per attempt, the phases around the attempts and the work its records account for. */
function ownTimes(
  ledger: string,
  runId: string,
  spawnedAt: number,
  exitedAt: number,
): { perAttemptMs: number[]; phasesMs: Phases; workMs: number } {
  const jsonl = execFileSync(process.execPath, [CLI, 'ledger', 'export', '--format', 'jsonl', '--run', runId, '--ledger', ledger], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const records = jsonl
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as LedgerLine)
    .filter((line) => line.body !== undefined)
    .map((line) => ({ type: line.type, body: JSON.parse(line.body as string) as { at: number; data: AttemptData } }));
  // Every finding of a check carries the check's duration: counted once per check. The scope check runs in redline.
  const checksMs = (data: AttemptData): number =>
    [
      ...new Map((data.findings ?? []).filter((item) => item.check !== 'scope').map((item) => [item.check, item.durationMs ?? 0])).values(),
    ].reduce((sum, ms) => sum + ms, 0);
  const workMs = records.reduce((sum, { body }) => sum + (body.data?.account?.durationMs ?? 0) + checksMs(body.data ?? {}), 0);
  const at = (type: string): number => records.find((record) => record.type === type)?.body.at ?? Number.NaN;
  const perAttemptMs: number[] = [];
  let previous: number | undefined;
  for (const { type, body } of records) {
    if (type === 'attempt' && previous !== undefined)
      perAttemptMs.push(body.at - previous - (body.data.account?.durationMs ?? 0) - checksMs(body.data));
    if (type === 'decision') previous = body.at;
  }
  return {
    perAttemptMs,
    workMs,
    phasesMs: {
      start: at('run.started') - spawnedAt,
      exit: exitedAt - at('run.sealed'),
    },
  };
}

interface AttemptData {
  readonly account?: { readonly durationMs?: number };
  readonly findings?: readonly { readonly check?: string; readonly durationMs?: number }[];
}

/**
 * Wall ms of `cp -r` of `dir` to `target` beside it, kept until the bench removes its folder. Removing it
 * at once would slow what comes next: on an ext4 without a journal (this machine's), a new file avoids
 * inodes freed in the last minute (six while their inode table block is not written out; `recently_deleted`
 * in the kernel's inode allocator) by testing them one by one: copying the 22,000-file tree right after a
 * copy of it was removed took 2.7 s against 0.5 s.
 */
async function copyTime(dir: string, target: string): Promise<number> {
  const { code, ms, output } = await sh(`cp -r ${JSON.stringify(dir)} ${JSON.stringify(target)}`, path.dirname(target));
  if (code !== 0) throw new Error(`real-overhead: cp -r of ${dir} failed: ${output}`);
  return ms;
}

/**
 * Writes back what earlier steps left in the page cache before a timed step: otherwise a step pays for the
 * write-back of the one before it (generating the 250 MB tree, a first run's copies), by far the largest
 * noise in these figures on this machine.
 */
function settle(): void {
  execFileSync('sync');
}

/** `redline run` of the mission by the built CLI: wall ms from spawn to exit, and its per-attempt times. */
async function redlineRun(
  subject: Subject,
  mission: string,
  ledger: string,
  cacheDir: string,
): Promise<{ ms: number; perAttemptMs: number[]; phasesMs: Phases; workMs: number }> {
  const spawnedAt = Date.now();
  const { code, ms, output } = await sh(
    `${JSON.stringify(process.execPath)} ${CLI} run ${mission} --json --ledger ${ledger} --cache-dir ${cacheDir}`,
    path.dirname(mission),
  );
  const line = output.split('\n').find((text) => text.startsWith('{"runId"'));
  const result = line === undefined ? undefined : (JSON.parse(line) as { runId: string; outcome: string; attempts: number });
  if (code !== 0 || result?.outcome !== 'complete' || result.attempts !== 2)
    throw new Error(`real-overhead: redline run on ${subject.name} exited ${code}: ${output.slice(-2000)}`);
  return { ms, ...ownTimes(ledger, result.runId, spawnedAt, Date.now()) };
}

/**
 * Each subject: `runs` pairs of (by hand, then `redline run`), the same repository throughout, a temp
 * ledger for redline. qs is installed into the bench cache when missing unless `quick`, which skips it.
 */
export async function realOverheadBench({
  quick = false,
  runs = quick ? 1 : 6,
  tree = quick
    ? { sourceFiles: 500, sourceDirs: 60, sourceBytes: 5_000_000, moduleFiles: 100 }
    : { sourceFiles: 20_000, sourceDirs: 2_000, sourceBytes: 250_000_000, moduleFiles: 2_000 },
}: { quick?: boolean; runs?: number; tree?: TreeSize } = {}): Promise<RealOverheadResult> {
  const before = os.loadavg()[0] as number;
  const root = mkdtempSync(path.join(os.tmpdir(), `redline-bench-real-${process.pid}-`));
  const rows: OverheadRow[] = [];
  const skipped: string[] = [];
  try {
    const qsStarted = performance.now();
    const cached = qsPackage(!quick);
    const qsSeconds = (performance.now() - qsStarted) / 1000;
    const subjects: Subject[] = [];
    if (cached === undefined)
      skipped.push(
        `qs ${QS_VERSION}: not in ${benchCache()} (quick mode does not download; \`npm run bench -- real-overhead\` installs it)`,
      );
    else subjects.push(qsSubject(cached, root));
    const treeStarted = performance.now();
    subjects.push(treeSubject(tree, root));
    const treeSeconds = (performance.now() - treeStarted) / 1000;
    for (const subject of subjects) {
      const proposer = path.join(root, `propose-${path.basename(subject.dir)}.cjs`);
      const mission = path.join(root, `mission-${path.basename(subject.dir)}.json`);
      const ledger = path.join(root, `ledger-${path.basename(subject.dir)}.db`);
      writeProposer(subject, proposer);
      writeMission(subject, mission, proposer);
      const cacheDir = path.join(root, 'cache');
      const copy = (when: string): Promise<number> => copyTime(subject.dir, path.join(root, `cp-${when}-${path.basename(subject.dir)}`));
      for (let run = 1; run <= runs; run += 1) {
        settle();
        const byHandMs = await byHand(subject, proposer);
        const copiesMs: number[] = [];
        // The first run's reference, taken next to it so that both meet the file system in the same state.
        if (run === 1) {
          settle();
          copiesMs.push(await copy('before'));
        }
        settle();
        const { ms: redlineMs, perAttemptMs, phasesMs, workMs } = await redlineRun(subject, mission, ledger, cacheDir);
        if (run === 1) {
          settle();
          copiesMs.push(await copy('after'));
        }
        rows.push({
          subject: subject.name,
          files: subject.files,
          run,
          redlineMs,
          ownMs: redlineMs - workMs,
          byHandMs,
          overheadMs: redlineMs - byHandMs,
          ratio: redlineMs / byHandMs,
          perAttemptMs,
          phasesMs,
          copiesMs,
        });
      }
    }
    return {
      rows,
      skipped,
      load: { before, after: os.loadavg()[0] as number },
      setupSeconds: { ...(cached === undefined ? {} : { qs: qsSeconds }), tree: treeSeconds },
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
