import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { liveChanges } from '../../src/workspace/live-changes.js';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';
import type { Snapshot } from '../../src/workspace/snapshot.js';
import { stampOf } from '../../src/workspace/stamp.js';
import { treeSpec } from './arbitraries.js';
import { applyCheckAction, checkAction, modifySameSize } from './check-actions.js';
import { withLaidWorkspace, withRun } from './laid-workspace.js';
import { alwaysIgnored, dir, type Entry, file, readTree, tempBase, type Tree, withoutIgnored, writeTree } from './tree.js';

// More cases: WORKSPACE_PROPERTY_RUNS=500 node --import tsx --test test/workspace/live-changes.test.ts
const NUM_RUNS = Number(process.env.WORKSPACE_PROPERTY_RUNS ?? 20);

const ORIGINAL: Tree = new Map<string, Entry>([
  ['src', dir],
  ['src/a.txt', file('alpha\n')],
  ['src/b.txt', file('bravo\n')],
  ['src/deep', dir],
  ['src/deep/c.txt', file('charlie\n')],
  ['script.sh', file('#!/bin/sh\n', 0o755)],
  ['link', { type: 'symlink', target: 'src/a.txt' }],
  ['empty', dir],
  ['.git', dir],
  ['.git/HEAD', file('ref: refs/heads/main\n')],
  ['dist', dir],
  ['dist/app.js', file('built\n')],
]);

describe('RunWorkspace.liveChanges: where the live workspace no longer matches the snapshot', () => {
  let base: { dir: string; remove: () => void };
  let ws: string;
  let run: RunWorkspace | undefined;
  const start = async (scratchDir = path.join(base.dir, 'scratch')): Promise<RunWorkspace> => {
    run = await RunWorkspace.start({ runId: 'live', workspace: ws, ignore: ['dist/**'], scratchDir });
    return run;
  };
  const at = (name: string): string => path.join(ws, name);

  beforeEach(() => {
    base = tempBase('live');
    ws = path.join(base.dir, 'ws');
    mkdirSync(ws);
    writeTree(ws, ORIGINAL);
  });

  afterEach(async () => {
    await run?.dispose();
    run = undefined;
    base.remove();
  });

  it('reports nothing for an untouched workspace, also after the copies were reset and used', async () => {
    const live = await start();
    const { dir: check } = await live.checkCopy({ 'src/a.txt': 'changed in the copy only\n' });
    writeFileSync(path.join(check, 'made-by-check.txt'), 'x');
    const agent = await live.agentCopy({});
    writeFileSync(path.join(agent, 'src/b.txt'), 'agent edit\n');
    assert.deepEqual(await live.liveChanges(), []);
  });

  it('reports a change of content with the same size and the modification time set back (to the nanosecond)', async () => {
    const live = await start();
    modifySameSize(at('src/b.txt'), new Uint8Array([3]), { exact: true });
    assert.deepEqual(await live.liveChanges(), ['src/b.txt']);
  });

  it('reports new files (also in new directories), deleted files and deleted directories', async () => {
    const live = await start();
    writeFileSync(at('src/new.txt'), 'new\n');
    mkdirSync(at('fresh/deeper'), { recursive: true });
    writeFileSync(at('fresh/deeper/n.txt'), 'n\n');
    rmSync(at('src/a.txt'));
    rmSync(at('src/deep'), { recursive: true });
    assert.deepEqual(await live.liveChanges(), [
      'fresh',
      'fresh/deeper',
      'fresh/deeper/n.txt',
      'src/a.txt',
      'src/deep',
      'src/deep/c.txt',
      'src/new.txt',
    ]);
  });

  it('reports a new symlink, a retargeted one, and a file replaced by a symlink or by a rename', async () => {
    const live = await start();
    symlinkSync('src', at('new-link'));
    rmSync(at('link'));
    symlinkSync('src/b.txt', at('link'));
    rmSync(at('src/deep/c.txt'));
    symlinkSync('../b.txt', at('src/deep/c.txt'));
    renameSync(at('src/b.txt'), at('src/a.txt'));
    assert.deepEqual(await live.liveChanges(), ['link', 'new-link', 'src/a.txt', 'src/b.txt', 'src/deep/c.txt']);
  });

  it('reports a chmod of a file and of a directory', async () => {
    const live = await start();
    chmodSync(at('script.sh'), 0o644);
    chmodSync(at('src/deep'), 0o700);
    assert.deepEqual(await live.liveChanges(), ['script.sh', 'src/deep']);
  });

  it('does not report ignored paths: .git, .redline, the mission globs, and a run directory inside the workspace', async () => {
    const live = await start(path.join(ws, 'tmp-scratch'));
    writeFileSync(at('.git/HEAD'), 'ref: refs/heads/other\n');
    mkdirSync(at('.git/refs'));
    mkdirSync(at('.redline'));
    writeFileSync(at('.redline/ledger.db'), 'x');
    mkdirSync(at('src/.git'));
    writeFileSync(at('dist/app.js'), 'rebuilt\n');
    writeFileSync(at('dist/more.js'), 'more\n');
    await live.checkCopy({ 'src/a.txt': 'x' });
    await live.agentCopy({});
    // The scratch directory existed when the snapshot was taken (start creates the run directory first); its content is redline's own.
    assert.deepEqual(await live.liveChanges(), []);
  });
});

/** The paths where two trees differ (content, mode, kind or target), either way, sorted. */
function differingPaths(before: Tree, after: Tree): string[] {
  const files = new Set([...before.keys(), ...after.keys()]);
  return [...files].filter((file) => JSON.stringify(before.get(file)) !== JSON.stringify(after.get(file))).sort();
}

describe('liveChanges after random edits', () => {
  it('names exactly the paths where the workspace differs from the snapshot, whether edited in the clock tick of the walk or later', async (t) => {
    let named = 0;
    await fc.assert(
      fc.asyncProperty(treeSpec, fc.array(checkAction, { minLength: 1, maxLength: 6 }), fc.boolean(), (spec, edits, settle) =>
        withLaidWorkspace({ prefix: `live-${process.pid}`, spec }, async (laid) => {
          const before = withoutIgnored(readTree(laid.ws), alwaysIgnored);
          await withRun(laid, 'live', async (run) => {
            // Edited at once (often the tick the walk began in: directories are listed), or some ticks later.
            if (settle) await sleep(20);
            const log = edits.map((action, index) => applyCheckAction(laid.ws, laid.lookalikes, action, index));
            const expected = differingPaths(before, withoutIgnored(readTree(laid.ws), alwaysIgnored));
            assert.deepEqual(await run.liveChanges(), expected, log.join('; '));
            named += expected.length;
          });
        }),
      ),
      { numRuns: NUM_RUNS },
    );
    t.diagnostic(`${NUM_RUNS} cases, ${named} paths named`);
  });

  it('lists a directory whose stamp could be shared by a later change, and trusts one stamped before the walk began', async () => {
    const { dir: base, remove } = tempBase('live-racy');
    try {
      mkdirSync(path.join(base, 'src'));
      writeFileSync(path.join(base, 'src/planted.py'), 'planted\n');
      // Stamps taken after the entry was made: as if the walk's stamp and the write shared a clock tick.
      const live = new Map([
        ['', stampOf(lstatSync(base))],
        ['src', stampOf(lstatSync(path.join(base, 'src')))],
      ]);
      const at = Math.max(...[...live.values()].map((stamp) => Math.max(stamp.mtimeMs, stamp.ctimeMs)));
      const snapshot = (startedAt: number | undefined): Snapshot => ({
        workspace: base,
        manifest: new Map([['src', { type: 'dir', mode: lstatSync(path.join(base, 'src')).mode & 0o7777 }]]),
        hash: '',
        ignored: () => false,
        rootMode: lstatSync(base).mode & 0o7777,
        live,
        startedAt,
        blob: () => Buffer.alloc(0),
        text: () => null,
      });
      assert.deepEqual(await liveChanges(snapshot(at)), ['src/planted.py']);
      assert.deepEqual(await liveChanges(snapshot(undefined)), ['src/planted.py'], 'unknown start: every directory is listed');
      assert.deepEqual(await liveChanges(snapshot(at + 1000)), [], 'a stamp taken before the walk began is trusted');
    } finally {
      remove();
    }
  });
});
