import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, cp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AdmitError, admitRun } from '../../src/analysis/admit.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { unifiedDiff, type FileChange } from '../../src/workspace/unified-diff.js';
import { layOut, recordRun, treeOf } from './admit-runs.js';
import { tempDir } from '../helpers/workspace.js';

const scratch = (): Promise<string> => tempDir('redline-patch-');

/** `git apply` (with `--check` first) of `patch` in `dir`, outside any repository. */
function gitApply(dir: string, patch: string): void {
  for (const args of [
    ['apply', '--check', patch],
    ['apply', patch],
  ]) {
    const result = spawnSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(dir) },
    });
    assert.equal(result.status, 0, `git ${args.join(' ')}: ${result.stderr}`);
  }
}

describe('unifiedDiff', () => {
  it('writes git-style headers: new, deleted and empty files, no final newline, quoted names', () => {
    const bytes = (text: string): Buffer => Buffer.from(text);
    const patch = unifiedDiff([
      { file: 'a b.txt', before: bytes('x\n'), after: bytes('y') },
      { file: 'new', before: null, after: bytes('n\n') },
      { file: 'empty', before: null, after: bytes('') },
      { file: 'tool', before: bytes('#!/bin/sh\r\n'), after: null, mode: 0o100755 },
      { file: 'é"q', before: bytes('same\n'), after: bytes('same\n') },
    ]).toString('latin1');
    assert.equal(
      patch,
      [
        'diff --git a/a b.txt b/a b.txt',
        '--- a/a b.txt\t',
        '+++ b/a b.txt\t',
        '@@ -1 +1 @@',
        '-x',
        '+y',
        '\\ No newline at end of file',
        'diff --git a/new b/new',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/new',
        '@@ -0,0 +1 @@',
        '+n',
        'diff --git a/empty b/empty',
        'new file mode 100644',
        'diff --git a/tool b/tool',
        'deleted file mode 100755',
        '--- a/tool',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-#!/bin/sh\r',
        '',
      ].join('\n'),
    );
  });

  // Texts made of few distinct lines, with CRLF, blank lines, and with or without a final newline, so
  // that edits land next to each other, at both ends and in repeated lines.
  const line = fc.constantFrom('a', 'b', 'c', '', 'a\r', 'dé');
  const text = fc
    .tuple(fc.array(line, { maxLength: 40 }), fc.boolean())
    .map(([lines, newline]) => (lines.length === 0 ? '' : `${lines.join('\n')}${newline ? '\n' : ''}`));
  const side = fc.option(text, { nil: null, freq: 5 });
  const NAMES = ['plain.txt', 'with space.txt', 'sub dir/ta\tb "q".md', 'ünï/cödé'];

  it('is applied by git apply on the before side and gives the after side (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(side, side), { minLength: 4, maxLength: 4 }), async (sides) => {
        const root = await scratch();
        try {
          const dir = path.join(root, 'tree');
          const changes: FileChange[] = sides.map(([before, after], index) => ({
            file: NAMES[index] as string,
            before: before === null ? null : Buffer.from(before),
            after: after === null ? null : Buffer.from(after),
          }));
          await layOut(
            dir,
            Object.fromEntries(changes.flatMap(({ file, before }) => (before === null ? [] : [[file, before.toString()]]))),
          );
          await layOut(dir, { '.keep': '' });
          const patch = unifiedDiff(changes);
          if (patch.length > 0) {
            await writeFile(path.join(root, 'change.diff'), patch);
            gitApply(dir, path.join(root, 'change.diff'));
          }
          for (const { file, after } of changes) assert.deepEqual(await readFile(path.join(dir, file)).catch(() => null), after);
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });

  it('shows a long rewrite as removed and added lines beyond its edit bound, still applying cleanly', async () => {
    const root = await scratch();
    const dir = path.join(root, 'tree');
    const before = Array.from({ length: 3_000 }, (_, index) => `old ${index}`).join('\n');
    const after = Array.from({ length: 3_000 }, (_, index) => `new ${index}`).join('\n');
    await layOut(dir, { big: before });
    await writeFile(path.join(root, 'p.diff'), unifiedDiff([{ file: 'big', before: Buffer.from(before), after: Buffer.from(after) }]));
    gitApply(dir, path.join(root, 'p.diff'));
    assert.equal(await readFile(path.join(dir, 'big'), 'utf8'), after);
  });
});

describe('admitRun --patch', () => {
  const BASE = {
    'crlf.txt': 'one\r\ntwo\r\nthree\r\n',
    'no-eol.txt': 'alpha\nbeta',
    'empty.txt': '',
    'gone.txt': 'bye\n',
    'tool.sh': '#!/bin/sh\necho hi\n',
    'with space/a b.txt': 'x\n',
    'same.txt': 'same\n',
    doc: 'a file\n',
  };
  const CANDIDATE = {
    'crlf.txt': 'one\r\nTWO\r\nthree\r\n',
    'no-eol.txt': 'alpha\nbeta\ngamma',
    'empty.txt': 'now full\n',
    'gone.txt': null,
    'tool.sh': null,
    'with space/a b.txt': 'y\n',
    'new empty.txt': '',
    'new/dir/n"é.txt': 'fresh',
    'same.txt': 'same\n',
    doc: null,
    'doc/index.md': '# index\n',
  };

  async function workspace(): Promise<string> {
    const dir = await scratch();
    await layOut(dir, BASE);
    await chmod(path.join(dir, 'tool.sh'), 0o755);
    return dir;
  }

  it('writes a patch against the directory that git apply accepts on a clean copy, giving what admitting the files gives; the directory is untouched', async () => {
    const dir = await workspace();
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, { files: CANDIDATE, baseline: BASE });
    const before = await treeOf(dir);
    const out = path.join(await scratch(), 'change.diff');
    const admission = await admitRun({ ledger, runId, dir, patch: out });
    assert.deepEqual([admission.mode, admission.patch, admission.unchanged], ['patch', out, ['same.txt']]);
    assert.deepEqual(admission.deleted, ['doc', 'gone.txt', 'tool.sh']);
    assert.deepEqual(await treeOf(dir), before);

    const applied = await scratch();
    await cp(dir, applied, { recursive: true });
    gitApply(applied, out);
    const expected = await scratch();
    await cp(dir, expected, { recursive: true });
    await admitRun({ ledger, runId, dir: expected });
    assert.deepEqual(await treeOf(applied), await treeOf(expected));
    const text = await readFile(out, 'latin1');
    assert.match(text, /^diff --git a\/tool\.sh b\/tool\.sh\ndeleted file mode 100755$/m);
    assert.match(text, /^diff --git "a\/new\/dir\/n\\"\\303\\251\.txt" "b\/new\/dir\/n\\"\\303\\251\.txt"\nnew file mode 100644$/m);
  });

  it('reads the mission workspace by default, refuses conflicts without writing the patch, and writes an empty patch when nothing is left to change', async () => {
    const dir = await workspace();
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, {
      files: { 'crlf.txt': 'changed\n' },
      baseline: { 'crlf.txt': 'what the run saw\n' },
      workspaceDir: dir,
    });
    const out = path.join(await scratch(), 'change.diff');
    const error: unknown = await admitRun({ ledger, runId, patch: out }).catch((thrown: unknown) => thrown);
    assert.ok(error instanceof AdmitError && error.code === 'admit.conflict', String(error));
    assert.deepEqual(error.problems, [{ file: 'crlf.txt', reason: 'changed since the run started' }]);
    await assert.rejects(stat(out), { code: 'ENOENT' });
    const forced = await admitRun({ ledger, runId, patch: out, force: true });
    assert.equal(forced.dir, dir);
    assert.match(await readFile(out, 'utf8'), /^-one\r\n-two\r\n-three\r\n\+changed\n/m);

    await writeFile(path.join(dir, 'crlf.txt'), 'changed\n');
    assert.deepEqual((await admitRun({ ledger, runId, patch: out })).unchanged, ['crlf.txt']);
    assert.equal((await readFile(out)).length, 0);
  });

  it('refuses to read through a symlink for the old side', async () => {
    const root = await scratch();
    await layOut(root, { 'secret.txt': 'secret\n', 'dir/leak': { symlink: path.join(root, 'secret.txt') } });
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, { files: { leak: 'x\n' }, baseline: { leak: 'secret\n' } });
    const out = path.join(root, 'change.diff');
    const error: unknown = await admitRun({ ledger, runId, dir: path.join(root, 'dir'), patch: out }).catch((thrown: unknown) => thrown);
    assert.ok(error instanceof AdmitError && error.code === 'admit.bad_path', String(error));
    await assert.rejects(stat(out), { code: 'ENOENT' });
  });
});
