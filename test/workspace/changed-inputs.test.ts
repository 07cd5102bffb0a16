import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { inputChanges } from '../../src/workspace/input-changes.js';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';
import { stampOf } from '../../src/workspace/stamp.js';
import { buildTree, OUTSIDE, treeSpec } from './arbitraries.js';
import { applyCheckAction, checkAction, modifySameSize } from './check-actions.js';
import { alwaysIgnored, expectedCopy, readTree, tempBase, withoutIgnored, writeTree, type Tree } from './tree.js';

// What a check copy reports as changed since its reset: the inputs a check may have seen instead of
// snapshot + candidate. More cases: WORKSPACE_PROPERTY_RUNS=500 node --import tsx --test test/workspace/changed-inputs.test.ts
const NUM_RUNS = Number(process.env.WORKSPACE_PROPERTY_RUNS ?? 20);

const nothingDeclared = (): boolean => false;

/** The expected paths of `expected` that `actual` no longer holds the same (content, mode, kind, target). */
function differing(expected: Tree, actual: Tree): string[] {
  return [...expected].filter(([file, want]) => JSON.stringify(actual.get(file)) !== JSON.stringify(want)).map(([file]) => file);
}

/** A workspace holding `files` (path → text), snapshotted by a run; `use` gets the run, and everything is removed after. */
async function withRun(files: Record<string, string>, use: (run: RunWorkspace) => Promise<void>): Promise<void> {
  const { dir: base, remove } = tempBase('inputs');
  try {
    const ws = path.join(base, 'ws');
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(ws, file)), { recursive: true });
      writeFileSync(path.join(ws, file), text);
    }
    const run = await RunWorkspace.start({ runId: 'inputs', workspace: ws, scratchDir: path.join(base, 'scratch') });
    try {
      await use(run);
    } finally {
      await run.dispose();
    }
  } finally {
    remove();
  }
}

describe('CheckCopy.changedInputs', () => {
  it('names every expected path a messy check changed right after the reset, and none when it only created entries', async (t) => {
    let changedSeen = 0;
    await fc.assert(
      fc.asyncProperty(treeSpec, fc.array(checkAction, { minLength: 1, maxLength: 4 }), async (spec, actions) => {
        const { dir: base, remove } = tempBase('inputs-prop');
        try {
          const [ws, outside, lookalikes] = ['ws', 'outside', 'lookalikes'].map((name) => path.join(base, name)) as [
            string,
            string,
            string,
          ];
          for (const dir of [ws, outside, lookalikes]) mkdirSync(dir);
          const tree = buildTree(spec, outside);
          writeTree(ws, tree);
          writeTree(outside, OUTSIDE);
          const run = await RunWorkspace.start({ runId: 'prop', workspace: ws, scratchDir: path.join(base, 'scratch') });
          try {
            const candidate = { 'made/new.txt': 'candidate' };
            const copy = await run.checkCopy(candidate);
            assert.deepEqual(await copy.changedInputs(nothingDeclared), [], 'a fresh reset changed nothing');
            // The check runs at once: no pause after the reset (the racy-timestamp window).
            const log = actions.map((action, index) => applyCheckAction(copy.dir, lookalikes, action, index));
            const changed = await copy.changedInputs(nothingDeclared);
            const expected = withoutIgnored(expectedCopy(tree, candidate), alwaysIgnored);
            const missed = differing(expected, readTree(copy.dir)).filter((file) => !changed.includes(file));
            assert.deepEqual(missed, [], `after ${log.join('; ')}: changed ${JSON.stringify(changed)}`);
            if (actions.every((action) => action.kind === 'create-file' || action.kind === 'create-dir'))
              assert.deepEqual(changed, [], `after ${log.join('; ')}`);
            if (changed.length > 0) changedSeen += 1;
            const again = await run.checkCopy(candidate);
            assert.deepEqual(await again.changedInputs(nothingDeclared), [], 'the next reset restored the copy');
          } finally {
            await run.dispose();
          }
        } finally {
          remove();
        }
      }),
      { numRuns: NUM_RUNS },
    );
    t.diagnostic(`${NUM_RUNS} cases, ${changedSeen} with changed inputs`);
  });

  it('names a file rewritten in place with other bytes of the same size and its old times set back exactly', async () => {
    await withRun({ 'test/a.test.js': 'assert(add(2, 3) === 5);\n', 'src/add.js': 'old\n' }, async (run) => {
      const copy = await run.checkCopy({ 'src/add.js': 'new\n' });
      modifySameSize(path.join(copy.dir, 'test/a.test.js'), new Uint8Array([7]), { exact: true });
      modifySameSize(path.join(copy.dir, 'src/add.js'), new Uint8Array([9]), { exact: true });
      assert.deepEqual(await copy.changedInputs(nothingDeclared), ['src/add.js', 'test/a.test.js']);
    });
  });

  it('leaves out declared outputs and what a check created, and names a file replaced by a directory or removed', async () => {
    await withRun({ 'report.xml': '<old/>\n', 'src/a.js': 'a\n', 'src/b.js': 'b\n', 'cache/keep.txt': 'k\n' }, async (run) => {
      const copy = await run.checkCopy({});
      writeFileSync(path.join(copy.dir, 'report.xml'), '<new/>\n');
      writeFileSync(path.join(copy.dir, 'cache/created.bin'), 'cache');
      mkdirSync(path.join(copy.dir, 'node_modules/.cache'), { recursive: true });
      assert.deepEqual(await copy.changedInputs((file) => file === 'report.xml'), []);
      rmSync(path.join(copy.dir, 'src/a.js'));
      mkdirSync(path.join(copy.dir, 'src/a.js'));
      rmSync(path.join(copy.dir, 'src/b.js'));
      assert.deepEqual(await copy.changedInputs((file) => file === 'report.xml'), ['src/a.js', 'src/b.js']);
      assert.deepEqual(await copy.changedInputs(nothingDeclared), ['report.xml', 'src/a.js', 'src/b.js']);
    });
  });

  it('hands out the next copy without what was created after the walk that ended its last use, and names what was changed then', async () => {
    await withRun({ 'src/a.py': 'a\n', 'test/test_a.py': 't\n' }, async (run) => {
      const copy = await run.checkCopy({ 'src/a.py': 'fixed\n' });
      const handedOut = readTree(copy.dir);
      writeFileSync(path.join(copy.dir, 'src/a.py'), 'rewritten by the check\n');
      assert.deepEqual(await copy.changedInputs(nothingDeclared), ['src/a.py']);
      // After that walk (a check cut short, a process left behind): entries created where the reset writes
      // and where it does not, and an expected path changed.
      writeFileSync(path.join(copy.dir, 'src/conftest.py'), 'planted\n');
      writeFileSync(path.join(copy.dir, 'conftest.py'), 'planted\n');
      mkdirSync(path.join(copy.dir, 'test/deep'));
      writeFileSync(path.join(copy.dir, 'test/deep/conftest.py'), 'planted\n');
      writeFileSync(path.join(copy.dir, 'test/test_a.py'), 'changed after the walk\n');
      const again = await run.checkCopy({ 'src/a.py': 'fixed\n' });
      for (const file of ['src/conftest.py', 'conftest.py', 'test/deep']) assert.equal(existsSync(path.join(again.dir, file)), false, file);
      assert.deepEqual(readdirSync(path.join(again.dir, 'src')), ['a.py']);
      // A check on that copy counts for nothing, and the reset after it restores the file.
      assert.deepEqual(await again.changedInputs(nothingDeclared), ['test/test_a.py']);
      const third = await run.checkCopy({ 'src/a.py': 'fixed\n' });
      assert.deepEqual(await third.changedInputs(nothingDeclared), []);
      assert.deepEqual(readTree(third.dir), handedOut);
    });
  });
});

describe('inputChanges', () => {
  it('lists a directory whose stamp could be shared by a later write, so an entry created in the same clock tick is found', async () => {
    const { dir: base, remove } = tempBase('inputs-racy');
    try {
      mkdirSync(path.join(base, 'src'));
      writeFileSync(path.join(base, 'src/planted.py'), 'planted\n');
      // The stamps taken after the entry was made: as if the reset's stamp and the write shared a tick.
      const stamps = new Map([
        ['', stampOf(lstatSync(base))],
        ['src', stampOf(lstatSync(path.join(base, 'src')))],
      ]);
      const settledAt = Math.max(...[...stamps.values()].map((stamp) => Math.max(stamp.mtimeMs, stamp.ctimeMs)));
      const found = await inputChanges({
        dir: base,
        stamps,
        settledAt,
        holds: () => true,
        expected: (file) => stamps.has(file),
        isOutput: nothingDeclared,
      });
      assert.deepEqual(found.changed, []);
      assert.deepEqual([...found.drift.extra], ['src/planted.py']);
      const older = await inputChanges({
        dir: base,
        stamps,
        settledAt: settledAt + 1000,
        holds: () => true,
        expected: (file) => stamps.has(file),
        isOutput: nothingDeclared,
      });
      assert.deepEqual([...older.drift.extra], [], 'a stamp older than the settling is trusted');
    } finally {
      remove();
    }
  });
});
