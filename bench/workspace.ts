// The cost of isolating checks from the user's workspace: redline's run workspace (one content-addressed
// snapshot and one check copy per run, reset incrementally before each check set) next to a full copy with
// GNU `cp -r` and next to the design before it (a fresh copy for every check set, reference-sandbox.ts),
// on a generated workspace of 20,000 source files (~250 MB) plus a node_modules of 10,000 files, in the
// same process run, interleaved round by round.
import { execFile, execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ignoreRule } from '../src/workspace/ignore.js';
import { runDirectory, RunWorkspace } from '../src/workspace/run-workspace.js';
import { takeSnapshot } from '../src/workspace/snapshot.js';
import { WorkCopy, type CandidateFiles, type ResetReport } from '../src/workspace/work-copy.js';
import { createSandbox } from './reference-sandbox.js';

/** Median and range of a set of measurements. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** What was generated: the workspace both designs isolate checks from. */
export interface TreeStats {
  readonly sourceFiles: number;
  readonly sourceDirs: number;
  readonly sourceBytes: number;
  readonly maxDepth: number;
  readonly moduleFiles: number;
  readonly moduleDirs: number;
  readonly moduleBytes: number;
  readonly moduleLinks: number;
}

export interface WorkspaceBenchResult {
  readonly tree: TreeStats;
  readonly rounds: number;
  readonly attemptsPerRound: number;
  readonly sandboxesPerRound: number;
  /** (a) `cp -r workspace dest`, ms; and `rm -rf dest` after it. */
  readonly cpMs: Spread;
  readonly rmMs: Spread;
  /** (b) `RunWorkspace.start`: snapshot, blob pack and the check copy in one pass, ms. */
  readonly startMs: Spread;
  /** The run's `dispose` (it renames the run directory and removes it in the background), and until it is gone. */
  readonly disposeMs: Spread;
  readonly removedMs: Spread;
  /** (c) `checkCopy` after a simulated check, ms per attempt (every sample), with what the resets reported. */
  readonly resetMs: Spread;
  readonly report: { readonly [K in keyof ResetReport]: Spread };
  /** (d) the reference's `createSandbox` + `dispose`, ms per attempt (every sample), and each part. */
  readonly sandboxMs: Spread;
  readonly sandboxCreateMs: Spread;
  readonly sandboxDisposeMs: Spread;
  /** Ratios within each round (per-attempt costs as the round's median), over the rounds. */
  readonly startOverCp: Spread;
  readonly sandboxOverReset: Spread;
  readonly resetOverCp: Spread;
  /**
   * Where a reset's time goes, on a second copy of the same snapshot put through the same attempts: an
   * `lstat` of every expected path on its own, then `WorkCopy.scan` (the lstats plus hashing the paths
   * whose stamp changed and listing changed directories), then the `reset` itself (its scan again, then
   * the writes).
   */
  readonly split: {
    readonly attemptsPerRound: number;
    readonly lstatMs: Spread;
    readonly scanMs: Spread;
    readonly resetMs: Spread;
    readonly paths: number;
    readonly changed: Spread;
    readonly extra: Spread;
  };
  /** Seconds spent outside the rounds: generating the tree, the git repository, writing the split's copy; and the whole bench (cleanup aside). */
  readonly setupSeconds: { readonly generate: number; readonly git: number; readonly splitCopy: number; readonly total: number };
  /** The 1-minute load average when the bench started and when it ended: the disk and both cores are shared. */
  readonly load: { readonly before: number; readonly after: number };
  /** `git status --porcelain` on a repository of the same tree (everything committed), or why it was skipped. */
  readonly gitStatusMs: Spread | { readonly skipped: string };
}

/** How big a generated tree is. */
export interface TreeSize {
  readonly sourceFiles: number;
  readonly sourceDirs: number;
  readonly sourceBytes: number;
  readonly moduleFiles: number;
}

/** The tree this bench measures: 20,000 sources in 2,000 directories, ~250 MB, and 10,000 files of node_modules. */
export const FULL_TREE: TreeSize = { sourceFiles: 20_000, sourceDirs: 2_000, sourceBytes: 250_000_000, moduleFiles: 10_000 };
const GIT_SETUP_MS = 60_000;

const WORDS = [
  'core',
  'util',
  'api',
  'model',
  'view',
  'render',
  'parse',
  'net',
  'io',
  'store',
  'auth',
  'user',
  'db',
  'cache',
  'config',
  'cli',
  'ui',
  'hooks',
  'types',
  'internal',
  'common',
  'shared',
  'feature',
  'admin',
  'billing',
  'search',
  'report',
  'jobs',
  'queue',
  'events',
  'format',
  'i18n',
];
const TOP_DIRS = ['src', 'test', 'packages', 'docs', 'scripts', 'assets', 'config', 'tools'];
const EXTENSIONS = ['ts', 'ts', 'ts', 'ts', 'ts', 'ts', 'test.ts', 'test.ts', 'test.ts', 'js', 'js', 'js', 'json', 'json', 'md', 'css'];
const MODULE_DIRS = ['lib', 'lib/internal', 'dist', 'dist/esm', 'dist/cjs', 'src', 'types'];

/** Deterministic pseudo-random numbers (mulberry32), and text made of them. */
class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  below(n: number): number {
    return Math.floor((this.next() / 2 ** 32) * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)] as T;
  }

  logNormal(median: number, sigma: number): number {
    const u = (this.next() + 1) / (2 ** 32 + 1);
    const v = this.next() / 2 ** 32;
    return median * Math.exp(sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
  }

  /**
   * `size` bytes of printable text after `header`: 64 symbols drawn uniformly (6 bits each, ~25% left for
   * a compressor to find), lines of 80.
   */
  text(size: number, header: string): Buffer {
    const bytes = Buffer.allocUnsafe(size);
    let at = bytes.write(header.slice(0, size), 'latin1');
    let pool = 0;
    let bits = 0;
    for (; at < size; at += 1) {
      if (at % 80 === 79) {
        bytes[at] = 10;
        continue;
      }
      if (bits < 6) {
        pool = this.next();
        bits = 32;
      }
      const symbol = pool & 63;
      pool >>>= 6;
      bits -= 6;
      // A–Z, a–z, 0–9, space, underscore.
      bytes[at] = symbol < 26 ? 65 + symbol : symbol < 52 ? 71 + symbol : symbol < 62 ? symbol - 4 : symbol === 62 ? 32 : 95;
    }
    return bytes;
  }
}

interface SourceFile {
  readonly file: string;
  readonly dir: string;
  readonly size: number;
}

/** The generated workspace, with what the simulated attempts pick from. */
export interface Tree {
  readonly stats: TreeStats;
  readonly files: readonly SourceFile[];
  /** Directories holding 8–12 files and no directory: what a check deletes. */
  readonly leaves: readonly string[];
}

/** Writes `root/file`, creating its directories (remembered in `made`). */
function put(root: string, file: string, bytes: Buffer, made: Set<string>): void {
  const dir = path.dirname(file);
  if (!made.has(dir)) {
    mkdirSync(path.join(root, dir), { recursive: true });
    made.add(dir);
  }
  writeFileSync(path.join(root, file), bytes);
}

/** ~2,000 nested directories (random recursive tree under a few top-level ones) holding 20,000 files of log-normal sizes, ~250 MB. */
function writeSources(
  root: string,
  random: Random,
  made: Set<string>,
  { sourceFiles, sourceDirs, sourceBytes }: TreeSize,
): Omit<Tree, 'stats'> & { dirs: number; bytes: number; maxDepth: number } {
  const dirs = TOP_DIRS.map((name) => ({ dir: name, depth: 1, subdirs: 0 }));
  const taken = new Set(TOP_DIRS);
  while (dirs.length < sourceDirs) {
    const parent = random.pick(dirs);
    if (parent.depth >= 8) continue;
    const dir = `${parent.dir}/${random.pick(WORDS)}${random.below(3) === 0 ? `-${random.below(100)}` : ''}`;
    if (taken.has(dir)) continue;
    taken.add(dir);
    parent.subdirs += 1;
    dirs.push({ dir, depth: parent.depth + 1, subdirs: 0 });
  }
  const drafts = Array.from({ length: sourceFiles }, (_, index) => {
    const { dir } = random.pick(dirs);
    return {
      file: `${dir}/${random.pick(WORDS)}-${index}.${random.pick(EXTENSIONS)}`,
      dir,
      size: Math.min(2_000_000, Math.max(64, random.logNormal(4_000, 1.5))),
    };
  });
  const scale = sourceBytes / drafts.reduce((sum, { size }) => sum + size, 0);
  const files = drafts.map((draft) => ({ ...draft, size: Math.max(64, Math.round(draft.size * scale)) }));
  let bytes = 0;
  for (const { file, size } of files) {
    put(root, file, random.text(size, `// ${file}\n`), made);
    bytes += size;
  }
  for (const { dir } of dirs) mkdirSync(path.join(root, dir), { recursive: true });
  const perDir = new Map<string, number>();
  for (const { dir } of files) perDir.set(dir, (perDir.get(dir) ?? 0) + 1);
  const leaves = dirs
    .filter(({ dir, subdirs }) => subdirs === 0 && (perDir.get(dir) ?? 0) >= 8 && (perDir.get(dir) ?? 0) <= 12)
    .map(({ dir }) => dir);
  return { files, leaves, dirs: dirs.length, bytes, maxDepth: Math.max(...dirs.map(({ depth }) => depth)) };
}

/** node_modules: small packages (some scoped, some with a nested node_modules), 10,000 files, a few `.bin` links. */
function writeModules(
  root: string,
  random: Random,
  made: Set<string>,
  moduleFiles: number,
): { files: number; dirs: number; bytes: number; links: number } {
  let files = 0;
  let bytes = 0;
  let links = 0;
  const before = made.size;
  const writePackage = (dir: string, count: number): void => {
    for (let index = 0; index < count; index += 1) {
      const file =
        index === 0
          ? 'package.json'
          : index === 1
            ? 'README.md'
            : index === 2
              ? 'index.js'
              : `${random.pick(MODULE_DIRS)}/${random.pick(WORDS)}-${index}.js`;
      const size = Math.round(Math.min(64_000, Math.max(40, random.logNormal(800, 1.2))));
      put(root, `${dir}/${file}`, random.text(size, `// ${dir}/${file}\n`), made);
      files += 1;
      bytes += size;
    }
  };
  for (let index = 0; files < moduleFiles; index += 1) {
    const name = `${random.pick(WORDS)}-${index}`;
    const dir = random.below(5) === 0 ? `node_modules/@${random.pick(WORDS)}/${name}` : `node_modules/${name}`;
    writePackage(dir, Math.min(moduleFiles - files, 3 + random.below(45)));
    if (index < 5 && files < moduleFiles) {
      put(root, `${dir}/bin/cli.js`, random.text(600, '#!/usr/bin/env node\n'), made);
      files += 1;
      bytes += 600;
      if (!made.has('node_modules/.bin')) mkdirSync(path.join(root, 'node_modules/.bin'));
      made.add('node_modules/.bin');
      symlinkSync(`../${dir.slice('node_modules/'.length)}/bin/cli.js`, path.join(root, `node_modules/.bin/${name}`));
      links += 1;
    }
    if (random.below(7) === 0 && files < moduleFiles)
      writePackage(`${dir}/node_modules/${random.pick(WORDS)}-nested-${index}`, Math.min(moduleFiles - files, 3 + random.below(12)));
  }
  // Directories of the packages' files, counted once each with their parents.
  const moduleDirs = new Set<string>();
  for (const dir of [...made].slice(before)) for (let at = dir; at.startsWith('node_modules/'); at = path.dirname(at)) moduleDirs.add(at);
  return { files, dirs: moduleDirs.size + 1, bytes, links };
}

/** The whole workspace under `root`: sources, node_modules, and a small `.git` both designs leave out. */
export function generate(root: string, size: TreeSize = FULL_TREE): Tree {
  const random = new Random(0x5eed);
  const made = new Set<string>();
  const sources = writeSources(root, random, made, size);
  const modules = writeModules(root, random, made, size.moduleFiles);
  for (const [file, bytes] of [
    ['.git/HEAD', Buffer.from('ref: refs/heads/main\n')],
    ['.git/config', Buffer.from('[core]\n\trepositoryformatversion = 0\n\tbare = false\n')],
    ['.git/refs/heads/main', Buffer.from('4b825dc642cb6eb9a060e54bf8d69288fbee4904\n')],
    ['.git/objects/4b/825dc642cb6eb9a060e54bf8d69288fbee4904', random.text(2_000, '')],
    ['.git/index', random.text(8_000, 'DIRC')],
  ] as const)
    put(root, file, bytes, made);
  return {
    files: sources.files,
    leaves: sources.leaves,
    stats: {
      sourceFiles: sources.files.length,
      sourceDirs: sources.dirs,
      sourceBytes: sources.bytes,
      maxDepth: sources.maxDepth,
      moduleFiles: modules.files,
      moduleDirs: modules.dirs,
      moduleBytes: modules.bytes,
      moduleLinks: modules.links,
    },
  };
}

/** What one simulated check does to the copy it runs in. */
interface CheckPlan {
  /** Source files it rewrites in place. */
  readonly modify: readonly string[];
  /** A source directory (~10 files) it deletes. */
  readonly remove: string;
}

/** A check's footprint: 30 files in `node_modules/.cache/x/`, 5 sources rewritten in place, one directory of ~10 sources deleted, `dist/` with 20 files. */
function runCheck(dir: string, plan: CheckPlan, random: Random): void {
  mkdirSync(path.join(dir, 'node_modules/.cache/x'), { recursive: true });
  for (let index = 0; index < 30; index += 1)
    writeFileSync(path.join(dir, `node_modules/.cache/x/entry-${index}.json`), random.text(1_000 + random.below(3_000), '{'));
  for (const file of plan.modify) {
    const fd = openSync(path.join(dir, file), 'r+');
    try {
      writeSync(fd, random.text(32, '//'), 0, 32, 0);
    } finally {
      closeSync(fd);
    }
  }
  rmSync(path.join(dir, plan.remove), { recursive: true });
  mkdirSync(path.join(dir, 'dist'), { recursive: true });
  for (let index = 0; index < 20; index += 1)
    writeFileSync(path.join(dir, `dist/chunk-${index}.js`), random.text(2_000 + random.below(8_000), '//'));
}

/** Two candidates of 5 files (4 sources rewritten, 1 new file in a new directory) on different paths, and the check plans, none touching them. */
function attempts(tree: Tree, random: Random): { candidates: [CandidateFiles, CandidateFiles]; plans: CheckPlan[] } {
  const small = tree.files.filter(({ size }) => size <= 32_000);
  const chosen = new Set<string>();
  const candidate = (label: string): CandidateFiles => {
    const files: Record<string, string> = {};
    while (Object.keys(files).length < 4) {
      const { file, size } = random.pick(small);
      if (chosen.has(file)) continue;
      chosen.add(file);
      files[file] = random.text(size + 200, `// candidate ${label}: ${file}\n`).toString('latin1');
    }
    files[`src/added-${label}/index.ts`] = random.text(3_000, `// candidate ${label}\n`).toString('latin1');
    return files;
  };
  const candidates: [CandidateFiles, CandidateFiles] = [candidate('a'), candidate('b')];
  const touched = new Set([...chosen].map((file) => path.posix.dirname(file)));
  const leaves = tree.leaves.filter((dir) => !touched.has(dir));
  const plans = leaves.slice(0, 64).map((remove) => {
    const modify = new Set<string>();
    while (modify.size < 5) {
      const { file, dir } = random.pick(small);
      if (!chosen.has(file) && dir !== remove) modify.add(file);
    }
    return { remove, modify: [...modify] };
  });
  if (plans.length < 16) throw new Error(`the generated tree has only ${plans.length} directories for a check to delete`);
  return { candidates, plans };
}

const run = promisify(execFile);

async function timed<T>(work: () => Promise<T> | T): Promise<[number, T]> {
  const started = performance.now();
  const result = await work();
  return [performance.now() - started, result];
}

function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median =
    sorted.length % 2 === 1 ? (sorted[Math.floor(middle)] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number };
}

/**
 * A git repository of the same tree (its own git dir, the workspace as work tree) with everything
 * committed, skipped when that takes too long. The index is filled with `update-index --info-only`: the
 * blobs are hashed but not written, which `git status` on a clean tree never reads (it compares stat data
 * with the index and the index with HEAD's tree), so the repository costs no second copy to write and remove.
 */
async function gitRepository(workspace: string, gitDir: string): Promise<{ env: NodeJS.ProcessEnv } | { skipped: string }> {
  const env = { ...process.env, GIT_DIR: gitDir, GIT_WORK_TREE: workspace, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  const deadline = performance.now() + GIT_SETUP_MS;
  const git = (args: string[], input?: string): string =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], {
      env,
      cwd: workspace,
      input,
      encoding: 'utf8',
      timeout: Math.max(1, Math.ceil(deadline - performance.now())),
      maxBuffer: 1 << 26,
    }).trim();
  try {
    git(['init', '-q']);
    const files = git(['ls-files', '-z', '--others'])
      .split('\0')
      .filter((file) => file !== '');
    // A symlink's blob is written: git reads it back to compare a link whose stamp it cannot trust.
    const links = files.filter((file) => lstatSync(path.join(workspace, file)).isSymbolicLink());
    git(['update-index', '--add', '--info-only', '-z', '--stdin'], files.filter((file) => !links.includes(file)).join('\0'));
    git(['update-index', '--add', '-z', '--stdin'], links.join('\0'));
    const tree = git(['write-tree', '--missing-ok']);
    git(['update-ref', 'HEAD', git(['commit-tree', tree, '-m', 'workspace'])]);
    return { env };
  } catch (error) {
    return {
      skipped:
        performance.now() >= deadline
          ? `setting the repository up took over ${GIT_SETUP_MS / 1000} s`
          : `git failed: ${(error as Error).message.split('\n')[0]}`,
    };
  }
}

interface RoundSamples {
  cp: number;
  rm: number;
  start: number;
  dispose: number;
  removed: number;
  resets: number[];
  reports: ResetReport[];
  creates: number[];
  disposals: number[];
  lstat: number[];
  scans: number[];
  splitResets: number[];
  changed: number[];
  extra: number[];
  git: number[];
}

/** Resolves once `dir` holds nothing whose name starts with `name`: the run directory, or the name it was given to be removed. */
async function removedFrom(dir: string, name: string): Promise<void> {
  while (existsSync(dir) && readdirSync(dir).some((entry) => entry.startsWith(name))) await sleep(20);
}

/** What a round wrote and the removal phase takes away. */
interface Leftovers {
  copy?: string | undefined;
  run?: RunWorkspace | undefined;
  sandboxes: { dispose(): Promise<void> }[];
}

/** Runs `steps` one after another, starting at `round`'s turn, so that no step always goes first. */
async function inTurn(round: number, steps: readonly (() => Promise<void>)[]): Promise<void> {
  for (let index = 0; index < steps.length; index += 1) await (steps[(index + round) % steps.length] as () => Promise<void>)();
}

/**
 * Times `work` after a `sync`: no timed operation inherits the write-back of the one before. What it
 * leaves to write back (and, for removals, to discard) is not in its time, for either design.
 */
async function settledTimed<T>(work: () => Promise<T> | T): Promise<[number, T]> {
  await run('sync', []);
  return timed(work);
}

/**
 * Isolation cost on a generated ~250 MB workspace: (a) `cp -r` of it, (b) `RunWorkspace.start`, (c) the
 * per-attempt `checkCopy` after a check wrote into the copy, (d) the reference's per-attempt copy. One
 * warm-up round (of the new design and git), then `rounds` rounds; each round runs every measurement, in
 * an order rotated per round, every timed operation after a `sync`.
 * What the rounds wrote is removed after the last one (each removal timed, also in rotated order): on
 * this machine's virtual disk a removal's discards slow the writes that follow it for many seconds,
 * which would bury the copying being compared.
 */
export async function workspaceBench({
  rounds = 5,
  attemptsPerRound = 5,
  splitAttemptsPerRound = 3,
  sandboxesPerRound = 1,
  size = FULL_TREE,
}: {
  rounds?: number;
  /** The generated tree's size (`FULL_TREE` unless a quick pass asks for less). */
  size?: TreeSize;
  attemptsPerRound?: number;
  splitAttemptsPerRound?: number;
  sandboxesPerRound?: number;
} = {}): Promise<WorkspaceBenchResult> {
  const started = performance.now();
  const loadBefore = os.loadavg()[0] as number;
  const root = mkdtempSync(path.join(os.tmpdir(), 'redline-bench-workspace-'));
  const leftovers: Leftovers[] = [];
  let splitPack: { close(): void } | undefined;
  try {
    const workspace = path.join(root, 'workspace');
    const [generateMs, tree] = await timed(() => generate(workspace, size));
    const random = new Random(0xc0de);
    const { candidates, plans } = attempts(tree, random);
    let nextPlan = 0;
    const plan = (): CheckPlan => plans[nextPlan++ % plans.length] as CheckPlan;

    const [gitMs, git] = await timed(() => gitRepository(workspace, path.join(root, 'git')));
    // The copy the reset's time is split on: the same snapshot, written the way `RunWorkspace.start` writes its check copy.
    mkdirSync(path.join(root, 'split'));
    const [splitCopyMs, taken] = await timed(() =>
      takeSnapshot({ workspace, ignored: ignoreRule(), runDir: path.join(root, 'split'), copyDir: path.join(root, 'split/check') }),
    );
    splitPack = taken.snapshot.pack;
    const split = WorkCopy.adopt(path.join(root, 'split/check'), taken.snapshot, taken.copyStamps);
    await split.reset(candidates[0]);
    const expected = ['', ...taken.snapshot.manifest.keys()].map((file) => path.join(split.dir, file));

    // Round 0 warms the page cache, the JIT and the git index up; its samples are dropped.
    const samples: RoundSamples[] = [];
    for (let round = 0; round <= rounds; round += 1) {
      const sample: RoundSamples = {
        cp: 0,
        rm: 0,
        start: 0,
        dispose: 0,
        removed: 0,
        resets: [],
        reports: [],
        creates: [],
        disposals: [],
        lstat: [],
        scans: [],
        splitResets: [],
        changed: [],
        extra: [],
        git: [],
      };
      const left: Leftovers = { sandboxes: [] };
      leftovers.push(left);
      samples.push(sample);
      await inTurn(round, [
        async () => {
          // Not in the warm-up round (nor is the reference copy): a spawned cp has nothing to warm up that generating the tree did not.
          if (round === 0) return;
          left.copy = path.join(root, `cp-${round}`);
          [sample.cp] = await settledTimed(() => run('cp', ['-r', workspace, left.copy as string]));
        },
        async () => {
          const [startMs, ws] = await settledTimed(() => RunWorkspace.start({ runId: `bench-${round}-run`, workspace, scratchDir: root }));
          sample.start = startMs;
          left.run = ws;
          // The first check set's reset (the run's first attempt) is not timed: no check has written yet.
          const { dir } = await ws.checkCopy(candidates[0]);
          for (let attempt = 1; attempt <= attemptsPerRound; attempt += 1) {
            runCheck(dir, plan(), random);
            const [ms, { report }] = await settledTimed(() => ws.checkCopy(candidates[attempt % 2] as CandidateFiles));
            sample.resets.push(ms);
            sample.reports.push(report);
          }
        },
        async () => {
          if (round === 0) return;
          for (let attempt = 0; attempt < sandboxesPerRound; attempt += 1) {
            const [createMs, sandbox] = await settledTimed(() =>
              createSandbox(workspace, { files: candidates[attempt % 2] as CandidateFiles }),
            );
            left.sandboxes.push(sandbox);
            sample.creates.push(createMs);
          }
        },
        async () => {
          for (let attempt = 1; attempt <= splitAttemptsPerRound; attempt += 1) {
            runCheck(split.dir, plan(), random);
            const [lstatMs] = await settledTimed(() => {
              for (const target of expected) lstatSync(target, { throwIfNoEntry: false });
            });
            const [scanMs, drift] = await timed(() => split.scan());
            const [resetMs] = await timed(() => split.reset(candidates[attempt % 2] as CandidateFiles));
            sample.lstat.push(lstatMs);
            sample.scans.push(scanMs);
            sample.splitResets.push(resetMs);
            sample.changed.push(drift.changed.size);
            sample.extra.push(drift.extra.size);
          }
        },
        async () => {
          if ('skipped' in git) return;
          for (let index = 0; index < 3; index += 1) {
            const [ms, { stdout }] = await settledTimed(() =>
              run('git', ['status', '--porcelain'], { env: git.env, cwd: workspace, maxBuffer: 1 << 26 }),
            );
            if (stdout !== '') throw new Error(`git status found changes in the untouched workspace: ${stdout.slice(0, 200)}`);
            sample.git.push(ms);
          }
        },
      ]);
    }
    for (const [round, left] of leftovers.entries()) {
      const sample = samples[round] as RoundSamples;
      await inTurn(round, [
        async () => {
          if (left.copy !== undefined) [sample.rm] = await settledTimed(() => run('rm', ['-rf', left.copy as string]));
          left.copy = undefined;
        },
        async () => {
          if (left.run === undefined) return;
          const runDir = runDirectory(`bench-${round}-run`, root);
          [sample.dispose] = await settledTimed(() => (left.run as RunWorkspace).dispose());
          left.run = undefined;
          const [goneMs] = await timed(() => removedFrom(path.dirname(runDir), path.basename(runDir)));
          sample.removed = sample.dispose + goneMs;
        },
        async () => {
          for (let sandbox = left.sandboxes.shift(); sandbox !== undefined; sandbox = left.sandboxes.shift()) {
            const [disposeMs] = await settledTimed(() => (sandbox as { dispose(): Promise<void> }).dispose());
            sample.disposals.push(disposeMs);
          }
        },
      ]);
    }
    samples.shift();

    const all = (pick: (sample: RoundSamples) => readonly number[]): Spread => spread(samples.flatMap(pick));
    const each = (pick: (sample: RoundSamples) => number): Spread => spread(samples.map(pick));
    const sandboxTotals = (sample: RoundSamples): number[] =>
      sample.creates.map((create, index) => create + (sample.disposals[index] as number));
    const reset = (sample: RoundSamples): number => spread(sample.resets).median;
    return {
      tree: tree.stats,
      rounds,
      attemptsPerRound,
      sandboxesPerRound,
      cpMs: each((sample) => sample.cp),
      rmMs: each((sample) => sample.rm),
      startMs: each((sample) => sample.start),
      disposeMs: each((sample) => sample.dispose),
      removedMs: each((sample) => sample.removed),
      resetMs: all((sample) => sample.resets),
      report: {
        scanned: all((sample) => sample.reports.map(({ scanned }) => scanned)),
        hashed: all((sample) => sample.reports.map(({ hashed }) => hashed)),
        restored: all((sample) => sample.reports.map(({ restored }) => restored)),
      },
      sandboxMs: all(sandboxTotals),
      sandboxCreateMs: all((sample) => sample.creates),
      sandboxDisposeMs: all((sample) => sample.disposals),
      startOverCp: each((sample) => sample.start / sample.cp),
      sandboxOverReset: each((sample) => spread(sandboxTotals(sample)).median / reset(sample)),
      resetOverCp: each((sample) => reset(sample) / sample.cp),
      split: {
        attemptsPerRound: splitAttemptsPerRound,
        lstatMs: all((sample) => sample.lstat),
        scanMs: all((sample) => sample.scans),
        resetMs: all((sample) => sample.splitResets),
        paths: expected.length,
        changed: all((sample) => sample.changed),
        extra: all((sample) => sample.extra),
      },
      setupSeconds: {
        generate: generateMs / 1000,
        git: gitMs / 1000,
        splitCopy: splitCopyMs / 1000,
        total: (performance.now() - started) / 1000,
      },
      load: { before: loadBefore, after: os.loadavg()[0] as number },
      gitStatusMs: 'skipped' in git ? git : all((sample) => sample.git),
    };
  } finally {
    for (const left of leftovers) {
      await left.run?.dispose();
      for (const sandbox of left.sandboxes) await sandbox.dispose();
    }
    splitPack?.close();
    rmSync(root, { recursive: true, force: true });
  }
}
