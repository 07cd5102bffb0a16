import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AdmitError, admitRun } from '../../src/analysis/admit.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { loadMission } from '../../src/mission/load.js';
import { malformedPath } from '../../src/workspace/path-rules.js';
import { layOut, recordRun, treeOf, type Layout } from './admit-runs.js';
import { tempDir } from '../helpers/workspace.js';

const scratch = (): Promise<string> => tempDir('redline-admit-');

/** Runs `work` and returns the AdmitError it throws. */
async function refusal(work: Promise<unknown>): Promise<AdmitError> {
  const error: unknown = await work.then(
    () => assert.fail('expected admission to be refused'),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof AdmitError, String(error));
  return error;
}

describe('admitRun into a directory', () => {
  it('writes and deletes the candidate, reports what was unchanged, and changes nothing when admitted again', async () => {
    const dir = await scratch();
    await layOut(dir, { 'src/a.js': 'old a\n', 'src/gone.js': 'bye\n', 'same.txt': 'kept\n' });
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, {
      files: { 'src/a.js': 'new a\n', 'src/gone.js': null, 'new/deep/b.txt': 'b', 'same.txt': 'kept\n' },
      baseline: { 'src/a.js': 'old a\n', 'src/gone.js': 'bye\n', 'same.txt': 'before\n' },
    });
    const admission = await admitRun({ ledger, runId, dir });
    assert.deepEqual(
      [admission.mode, admission.written, admission.deleted, admission.unchanged, admission.forced, admission.checked],
      ['files', ['new/deep/b.txt', 'src/a.js'], ['src/gone.js'], ['same.txt'], [], true],
    );
    const after = await treeOf(dir);
    assert.equal(await readFile(path.join(dir, 'src/a.js'), 'utf8'), 'new a\n');
    assert.equal(await readFile(path.join(dir, 'new/deep/b.txt'), 'utf8'), 'b');
    assert.equal(after['src/gone.js'], undefined);

    const again = await admitRun({ ledger, runId, dir });
    assert.deepEqual([again.written, again.deleted, again.unchanged], [[], [], ['new/deep/b.txt', 'same.txt', 'src/a.js', 'src/gone.js']]);
    assert.deepEqual(await treeOf(dir), after);
  });

  it('refuses every path changed, created or deleted since the run started, writes nothing, and admits over them with force', async () => {
    const dir = await scratch();
    await layOut(dir, { 'edited.txt': 'edited by someone\n', 'created.txt': 'new here\n', 'clean.txt': 'base\n' });
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, {
      files: { 'edited.txt': 'candidate\n', 'created.txt': 'candidate\n', 'removed.txt': 'candidate\n', 'clean.txt': 'candidate\n' },
      baseline: { 'edited.txt': 'base\n', 'removed.txt': 'base\n', 'clean.txt': 'base\n' },
    });
    const before = await treeOf(dir);
    const error = await refusal(admitRun({ ledger, runId, dir }));
    assert.equal(error.code, 'admit.conflict');
    assert.deepEqual(error.problems, [
      { file: 'created.txt', reason: 'created since the run started' },
      { file: 'edited.txt', reason: 'changed since the run started' },
      { file: 'removed.txt', reason: 'deleted since the run started' },
    ]);
    assert.match(
      error.message,
      /3 path\(s\) of .* changed since the run started; nothing was written \(--force admits over them\)\n {2}created\.txt: created since/,
    );
    assert.deepEqual(await treeOf(dir), before);

    const forced = await admitRun({ ledger, runId, dir, force: true });
    assert.deepEqual(
      forced.forced.map(({ file, change }) => `${change} ${file}`),
      ['created created.txt', 'changed edited.txt', 'deleted removed.txt'],
    );
    for (const file of ['edited.txt', 'created.txt', 'removed.txt', 'clean.txt'])
      assert.equal(await readFile(path.join(dir, file), 'utf8'), 'candidate\n');
  });

  it('requires force for a run recorded without baseline hashes, unless the directory already holds the candidate', async () => {
    const dir = await scratch();
    await layOut(dir, { 'a.txt': 'whatever\n' });
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, { files: { 'a.txt': 'candidate\n' }, baseline: 'unrecorded' });
    const error = await refusal(admitRun({ ledger, runId, dir }));
    assert.equal(error.code, 'admit.no_baseline');
    assert.deepEqual(error.problems, [{ file: 'a.txt', reason: 'not checked' }]);
    const forced = await admitRun({ ledger, runId, dir, force: true });
    assert.deepEqual([forced.checked, forced.written], [false, ['a.txt']]);
    assert.deepEqual((await admitRun({ ledger, runId, dir })).unchanged, ['a.txt']);
  });

  it('replaces a file the candidate deletes by a directory of the same name', async () => {
    const dir = await scratch();
    await layOut(dir, { docs: 'a file\n' });
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, { files: { docs: null, 'docs/index.md': '# docs\n' }, baseline: { docs: 'a file\n' } });
    await admitRun({ ledger, runId, dir });
    assert.deepEqual(await treeOf(dir), { docs: 'dir 755', 'docs/index.md': `file 644 ${Buffer.from('# docs\n').toString('hex')}` });
  });

  it('refuses paths through symlinks, onto symlinks or directories, and malformed paths, naming each, and writes nothing anywhere', async () => {
    const root = await scratch();
    const dir = path.join(root, 'dir');
    const outside = path.join(root, 'outside');
    await layOut(root, {
      'outside/secret.txt': 'secret\n',
      'dir/ok.txt': 'ok\n',
      'dir/linkdir': { symlink: outside },
      'dir/linkfile': { symlink: path.join(outside, 'secret.txt') },
      'dir/up': { symlink: '..' },
      'dir/sub': { dir: true },
      'dir/plain': 'file\n',
    });
    const ledger = new MemoryLedger();
    const files = {
      'ok.txt': 'changed\n',
      'linkdir/secret.txt': 'pwned\n',
      linkfile: 'pwned\n',
      'up/outside/new.txt': 'pwned\n',
      sub: 'not a dir\n',
      'plain/below.txt': 'x\n',
      '../outside/secret.txt': 'pwned\n',
      [path.join(outside, 'abs.txt')]: 'pwned\n',
      'a/./b': 'x\n',
      '.git/config': 'x\n',
    };
    const runId = await recordRun(ledger, { files, baseline: { 'ok.txt': 'ok\n' } });
    const before = await treeOf(root);
    const error = await refusal(admitRun({ ledger, runId, dir, force: true }));
    assert.equal(error.code, 'admit.bad_path');
    assert.deepEqual(Object.fromEntries(error.problems.map(({ file, reason }) => [file, reason])), {
      [path.join(outside, 'abs.txt')]: 'an absolute path',
      '../outside/secret.txt': 'a path leaving the workspace',
      '.git/config': 'a path inside .git',
      'a/./b': 'a path not in normal form',
      'linkdir/secret.txt': 'through "linkdir", a symlink',
      linkfile: 'a symlink',
      'plain/below.txt': 'below the file "plain"',
      sub: 'a directory',
      'up/outside/new.txt': 'through "up", a symlink',
    });
    assert.deepEqual(await treeOf(root), before);
  });

  it("refuses what the workspace's path rules refuse, and .redline at any depth in any case, writing nothing", async () => {
    const dir = await scratch();
    await layOut(dir, { '.redline/ledger.db': 'the ledger\n', 'ok.txt': 'ok\n' });
    const long = 'x'.repeat(300);
    const ledger = new MemoryLedger();
    const files = {
      'ok.txt': 'changed\n',
      '.GIT/config': 'x\n',
      'a/.Git./hooks/pre-commit': 'x\n',
      '.redline/ledger.db': 'x\n',
      'sub/.REDLINE/x': 'x\n',
      '.Redline': null,
      [`dir/${long}`]: 'x\n',
    };
    const runId = await recordRun(ledger, { files, baseline: { 'ok.txt': 'ok\n', '.redline/ledger.db': 'the ledger\n' } });
    const before = await treeOf(dir);
    const error = await refusal(admitRun({ ledger, runId, dir, force: true }));
    assert.equal(error.code, 'admit.bad_path');
    const inside = 'a path inside .git or .redline, which redline never admits into';
    assert.deepEqual(Object.fromEntries(error.problems.map(({ file, reason }) => [file, reason])), {
      '.GIT/config': 'a path inside .git',
      '.Redline': inside,
      '.redline/ledger.db': inside,
      'a/.Git./hooks/pre-commit': 'a path inside .git',
      [`dir/${long}`]: 'a path with a component longer than 255 bytes',
      'sub/.REDLINE/x': inside,
    });
    assert.deepEqual(await treeOf(dir), before);
  });

  it('refuses a run that is unknown, not complete, or whose last candidate is not the sealed one', async () => {
    const dir = await scratch();
    const ledger = new MemoryLedger();
    assert.equal((await refusal(admitRun({ ledger, runId: 'nope', dir }))).code, 'admit.unknown_run');
    const failed = await recordRun(ledger, { files: { 'a.txt': 'x' }, outcome: 'failed_with_evidence' });
    const notComplete = await refusal(admitRun({ ledger, runId: failed, dir }));
    assert.equal(notComplete.code, 'admit.not_complete');
    assert.match(notComplete.message, /ended failed_with_evidence \(budget_attempts\); only a complete run can be admitted/);
    await assert.rejects(admitRun({ ledger, runId: failed }), /Expected a directory to admit into, got none/);
    await assert.rejects(admitRun({ ledger, runId: failed, patch: 'p', gitBranch: 'b' }), TypeError);
  });
});

describe('admitRun stopped partway through writing', () => {
  // A real I/O error after some files were written, as root too: the child's file-size limit
  // (`ulimit -f`, 1 or 2 MiB by the shell's unit) makes writing the 4 MiB file fail with EFBIG.
  it('reports admit.partial with every path written, deleted, failed or not reached', async () => {
    const dir = await scratch();
    await layOut(dir, { 'gone.txt': 'bye\n', 'a.txt': 'old a\n' });
    const source = path.resolve(import.meta.dirname, '../..');
    // The suites' compiled tree runs as JavaScript; from source, through tsx.
    const compiled = existsSync(path.join(source, 'src/analysis/admit.js'));
    const ext = compiled ? 'js' : 'ts';
    const script = `
      const { admitRun } = await import(${JSON.stringify(path.join(source, `src/analysis/admit.${ext}`))});
      const { MemoryLedger } = await import(${JSON.stringify(path.join(source, `src/ledger/memory/memory-ledger.${ext}`))});
      const { recordRun } = await import(${JSON.stringify(path.join(import.meta.dirname, `admit-runs.${ext}`))});
      const ledger = new MemoryLedger();
      const files = { 'gone.txt': null, 'a.txt': 'new a\\n', 'b.bin': 'x'.repeat(4 * 1024 * 1024), 'c/d.txt': 'new d\\n' };
      const runId = await recordRun(ledger, { files, baseline: { 'gone.txt': 'bye\\n', 'a.txt': 'old a\\n' } });
      const error = await admitRun({ ledger, runId, dir: ${JSON.stringify(dir)} }).then(() => undefined, (thrown) => thrown);
      console.log(JSON.stringify({ runId, name: error?.name, code: error?.code, message: error?.message, problems: error?.problems }));`;
    const child = spawnSync(
      'sh',
      [
        '-c',
        'ulimit -f 2048 && exec "$0" "$@"',
        process.execPath,
        ...(compiled ? [] : ['--import', 'tsx']),
        '--input-type=module',
        '-e',
        script,
      ],
      { cwd: source, encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(child.status, 0, child.stderr);
    const { runId, ...error } = JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as {
      runId: string;
      name: string;
      code: string;
      message: string;
      problems: unknown;
    };
    assert.deepEqual([error.name, error.code], ['AdmitError', 'admit.partial'], error.message);
    assert.equal(
      error.message.split('\n')[0],
      `run ${runId}: admission into ${dir} stopped at "b.bin" (EFBIG); 2 path(s) were changed before it, 2 were not`,
    );
    assert.deepEqual(error.problems, [
      { file: 'gone.txt', reason: 'deleted' },
      { file: 'a.txt', reason: 'written' },
      { file: 'b.bin', reason: 'not written: EFBIG: file too large, write' },
      { file: 'c/d.txt', reason: 'not written (not reached)' },
    ]);
    // Exactly what the report says: no temporary file left, nothing of the paths not reached.
    assert.deepEqual(await treeOf(dir), { 'a.txt': `file 644 ${Buffer.from('new a\n').toString('hex')}` });
  });
});

describe('admitRun on a run of the loop', () => {
  it('admits what runMission sealed, then finds the workspace changed when it is edited meanwhile', async () => {
    const root = await scratch();
    await cp(path.resolve(import.meta.dirname, '../../examples/fizzbuzz'), root, { recursive: true });
    const ledger = new MemoryLedger();
    const result = await runMission({ mission: await loadMission(path.join(root, 'mission.yaml')), ledger });
    assert.equal(result.outcome, 'complete');
    const workspace = path.join(root, 'workspace');
    const target = await scratch();
    await cp(workspace, target, { recursive: true });
    const admission = await admitRun({ ledger, runId: result.runId, dir: target });
    assert.deepEqual([admission.written, admission.checked], [['src/fizzbuzz.js'], true]);
    assert.equal(await readFile(path.join(target, 'src/fizzbuzz.js'), 'utf8'), result.candidate.files['src/fizzbuzz.js']);

    await writeFile(path.join(workspace, 'src/fizzbuzz.js'), 'edited after the run\n');
    const error = await refusal(admitRun({ ledger, runId: result.runId, patch: path.join(root, 'change.diff') }));
    assert.deepEqual(
      [error.code, error.problems],
      ['admit.conflict', [{ file: 'src/fizzbuzz.js', reason: 'changed since the run started' }]],
    );
  });
});

/** Trees a run; new ones every run. For a longer hunt: WORKSPACE_PROPERTY_RUNS=500 node --import tsx --test test/analysis/admit.test.ts */
const NUM_RUNS = Number(process.env.WORKSPACE_PROPERTY_RUNS ?? 60);

// Trees with symlinks to files and directories outside, to `..` and to absolute targets outside, and
// candidates naming paths through them: whatever admission decides, nothing outside changes, and a
// refused admission changes nothing inside either.
describe('admitRun never writes outside the directory (property)', () => {
  const NAMES = ['a', 'b', 'c', 'x'];
  type Kind = { kind: 'file' } | { kind: 'dir' } | { kind: 'symlink'; target: number };
  const TARGETS = (root: string): string[] => [
    `${root}/outside`,
    `${root}/outside/secret.txt`,
    `${root}/outside/missing.txt`,
    root,
    '..',
    '../outside',
    '../outside/secret.txt',
    '../../outside',
    'a',
    'b/a',
  ];
  const kind: fc.Arbitrary<Kind | undefined> = fc.oneof(
    fc.constant(undefined),
    fc.constant({ kind: 'file' as const }),
    fc.constant({ kind: 'dir' as const }),
    fc.integer({ min: 0, max: 9 }).map((target) => ({ kind: 'symlink' as const, target })),
  );
  const tree = fc.record({
    top: fc.array(kind, { minLength: 3, maxLength: 3 }),
    children: fc.array(fc.array(kind, { minLength: 3, maxLength: 3 }), { minLength: 3, maxLength: 3 }),
  });
  const goodPath = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
  const candidatePath = fc.oneof(
    { weight: 6, arbitrary: goodPath },
    { weight: 1, arbitrary: fc.constantFrom('../outside/secret.txt', 'a/../../outside/z', '/OUTSIDE/abs.txt') },
  );
  const candidate = fc.dictionary(candidatePath, fc.option(fc.constantFrom('pwned\n', 'x'), { nil: null }), { minKeys: 1, maxKeys: 4 });

  function layoutOf(root: string, { top, children }: { top: (Kind | undefined)[]; children: (Kind | undefined)[][] }): Layout {
    const layout: Record<string, Layout[string]> = {};
    const entry = (file: string, item: Kind): Layout[string] =>
      item.kind === 'file'
        ? `content of ${file}\n`
        : item.kind === 'dir'
          ? { dir: true }
          : { symlink: TARGETS(root)[item.target] as string };
    top.forEach((item, index) => {
      const name = NAMES[index] as string;
      if (item === undefined) return;
      if (item.kind !== 'dir') layout[name] = entry(name, item);
      else {
        layout[name] = { dir: true };
        (children[index] ?? []).forEach((child, at) => {
          if (child !== undefined) layout[`${name}/${NAMES[at]}`] = entry(`${name}/${NAMES[at]}`, child);
        });
      }
    });
    return layout;
  }

  /** The oracle: a path is admissible when well formed and nothing on its way is a symlink, a directory at its end, or a file that stays. */
  function admissible(file: string, files: Record<string, string | null>, layout: Layout): boolean {
    if (malformedPath(file) !== undefined) return false;
    const parts = file.split('/');
    const ancestors = parts.slice(1).map((_, end) => parts.slice(0, end + 1).join('/'));
    if (ancestors.some((ancestor) => typeof files[ancestor] === 'string')) return false;
    for (const ancestor of ancestors) {
      const at = layout[ancestor];
      if (at === undefined) return true;
      if (typeof at === 'string') return files[ancestor] === null;
      if ('symlink' in at) return false;
    }
    const at = layout[file];
    return at === undefined || typeof at === 'string';
  }

  it('keeps a sentinel outside byte-identical, and the directory too when it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(tree, candidate, async (shape, proposed) => {
        const root = await scratch();
        try {
          const dir = path.join(root, 'dir');
          await layOut(root, { 'outside/secret.txt': 'secret\n', 'outside/sub/f': 'f\n' });
          await mkdir(dir);
          const layout = layoutOf(root, shape);
          await layOut(dir, layout);
          const files = Object.fromEntries(
            Object.entries(proposed).map(([file, content]) => [file.replace('/OUTSIDE', path.join(root, 'outside')), content]),
          );
          const baseline = Object.fromEntries(
            Object.keys(files).flatMap((file) => (typeof layout[file] === 'string' ? [[file, layout[file]]] : [])),
          );
          const ledger = new MemoryLedger();
          const runId = await recordRun(ledger, { files, baseline });
          const sentinel = async (): Promise<Record<string, string>> =>
            Object.fromEntries(Object.entries(await treeOf(root)).filter(([file]) => file !== 'dir' && !file.startsWith(`dir${path.sep}`)));
          const outsideBefore = await sentinel();
          const insideBefore = await treeOf(dir);
          const outcome = await admitRun({ ledger, runId, dir }).then(
            () => 'admitted',
            (error: unknown) => {
              if (!(error instanceof AdmitError) || error.code !== 'admit.bad_path') throw error;
              return 'refused';
            },
          );
          assert.deepEqual(await sentinel(), outsideBefore);
          const expected = Object.keys(files).every((file) => admissible(file, files, layout)) ? 'admitted' : 'refused';
          assert.equal(outcome, expected);
          if (outcome === 'refused') assert.deepEqual(await treeOf(dir), insideBefore);
          else {
            const after = await treeOf(dir);
            // A deleted path holds no file afterwards (a directory when the candidate writes below it).
            for (const [file, content] of Object.entries(files))
              assert.equal(
                after[file]?.startsWith('file') === true ? after[file] : undefined,
                content === null ? undefined : `file 644 ${Buffer.from(content).toString('hex')}`,
              );
          }
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('keeps a file outside intact when the candidate names it through a symlinked parent', async () => {
    const root = await scratch();
    await writeFile(path.join(root, 'victim'), 'intact\n');
    await layOut(root, { 'dir/link': { symlink: root } });
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, { files: { 'link/victim': null } });
    assert.equal((await refusal(admitRun({ ledger, runId, dir: path.join(root, 'dir'), force: true }))).code, 'admit.bad_path');
    assert.equal(await readFile(path.join(root, 'victim'), 'utf8'), 'intact\n');
  });
});
