import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';
import { modifySameSize } from './check-actions.js';
import { dir, type Entry, file, tempBase, type Tree, writeTree } from './tree.js';

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
