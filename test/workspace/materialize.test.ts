import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ignoreRule } from '../../src/workspace/ignore.js';
import type { BlobPack } from '../../src/workspace/blob-pack.js';
import { takeSnapshot, type Snapshot } from '../../src/workspace/snapshot.js';
import { sameStamp, stampOf } from '../../src/workspace/stamp.js';
import { WorkCopy } from '../../src/workspace/work-copy.js';
import { dir, type Entry, expectedCopy, file, readTree, tempBase, type Tree, treeDifferences, writeTree } from './tree.js';

// A copy written from a snapshot's blobs (an agent's first copy, a rebuilt check copy): its small files are
// created on a second thread while the blobs are read and checked on the first, a file too large for the
// thread's batches here. Whatever the split, the copy holds exactly the snapshot, and the stamps it keeps
// are the ones its paths have, so a scan right after finds nothing to undo.

/** More files than one of the writer's batches (512), so that the second thread writes some. */
function workspaceTree(): Tree {
  const tree: Tree = new Map<string, Entry>([
    ['a', dir],
    ['a/b.txt', file('in a\n')],
    // Names that sort between a folder and what it holds ('-' and '.' come before '/').
    ['a-b', dir],
    ['a-b/c.txt', file('in a-b\n')],
    ['a.b', file('a file named like a folder\n')],
    ['empty.txt', file('')],
    ['open.sh', file('#!/bin/sh\necho open\n', 0o777)],
    ['private', { type: 'dir', mode: 0o700 }],
    ['private/key', file('secret\n', 0o600)],
    ['link', { type: 'symlink', target: 'a/b.txt' }],
    ['many', dir],
  ]);
  for (let index = 0; index < 1_300; index += 1) {
    const folder = `many/f${index % 13}`;
    tree.set(folder, dir);
    tree.set(`${folder}/file-${index}.txt`, file(`file ${index}\n`.repeat(index % 40)));
  }
  // Larger than a batch (4 MiB): written in place.
  tree.set('large.bin', { type: 'file', mode: 0o644, content: randomBytes(5 * 1024 * 1024 + 3) });
  return tree;
}

describe('WorkCopy.materialize: a copy written from the blobs', () => {
  let base: { dir: string; remove: () => void };

  /** `tree` laid out as a workspace named `name`, and its snapshot (a pack of its own). */
  async function snapshotOf(tree: Tree, name: string): Promise<Snapshot & { readonly pack: BlobPack }> {
    const workspace = path.join(base.dir, `ws-${name}`);
    mkdirSync(workspace);
    writeTree(workspace, tree);
    const runDir = path.join(base.dir, `run-${name}`);
    mkdirSync(runDir);
    return (await takeSnapshot({ workspace, ignored: ignoreRule(), runDir })).snapshot;
  }

  before(() => {
    base = tempBase('materialize');
  });

  after(() => base.remove());

  it('holds exactly the snapshot, modes and symlinks included, and keeps the stamps its paths have', async () => {
    const tree = workspaceTree();
    const snapshot = await snapshotOf(tree, 'plain');
    try {
      const copy = await WorkCopy.materialize(path.join(base.dir, 'copy'), snapshot);
      assert.deepEqual(treeDifferences(expectedCopy(tree, {}), readTree(copy.dir)), []);
      const state = copy.state();
      assert.ok(state !== undefined);
      const stamps = new Map(state.stamps);
      assert.equal(stamps.size, tree.size + 1, 'a stamp for every path and the root');
      const differing = [...stamps].filter(([name, stamp]) => !sameStamp(stamp, stampOf(lstatSync(path.join(copy.dir, name)))));
      assert.deepEqual(differing, []);
      const drift = await copy.scan();
      assert.deepEqual([[...drift.changed], [...drift.extra]], [[], []]);
    } finally {
      snapshot.pack.close();
    }
  });

  it('a folder swapped for a symlink to outside while the copy is written fails it, naming the folder', async () => {
    // A read-only folder, whose mode is set once its files are written.
    const tree = new Map([...workspaceTree(), ['sealed', { type: 'dir', mode: 0o555 }], ['sealed/key', file('sealed\n')]] as [
      string,
      Entry,
    ][]);
    const snapshot = await snapshotOf(tree, 'swapped');
    const copyDir = path.join(base.dir, 'copy-swapped');
    const outside = path.join(base.dir, 'outside');
    mkdirSync(outside);
    // Another process of the same user, polled between the copy's turns: once `sealed` is written, it
    // moves it outside and leaves a symlink to it in its place.
    let swapped = false;
    const swap = (): void => {
      if (swapped) return;
      if (existsSync(path.join(copyDir, 'sealed/key'))) {
        renameSync(path.join(copyDir, 'sealed'), path.join(outside, 'sealed'));
        symlinkSync(path.join(outside, 'sealed'), path.join(copyDir, 'sealed'));
        swapped = true;
        return;
      }
      setImmediate(swap);
    };
    setImmediate(swap);
    try {
      await assert.rejects(
        WorkCopy.materialize(copyDir, snapshot),
        new RegExp(
          `${path.join(copyDir, 'sealed').replaceAll('/', '\\/')} is no longer a folder: something replaced it while the copy was written`,
        ),
      );
      assert.ok(swapped);
      // Its mode was not set through the symlink: the folder outside stays writable, as it was written.
      assert.equal(lstatSync(path.join(outside, 'sealed')).mode & 0o700, 0o700);
    } finally {
      snapshot.pack.close();
    }
  });

  it('stops at a blob that no longer matches its hash, with that error, once the writer thread has started', async () => {
    const tree = workspaceTree();
    const snapshot = await snapshotOf(tree, 'damaged');
    try {
      // open.sh sorts after the 1,300 files of many/: written when batches have gone to the thread.
      const entry = snapshot.manifest.get('open.sh');
      assert.equal(entry?.type, 'file');
      // Read once: the pack's last bytes are in its file from then on.
      snapshot.blob((entry as { hash: string }).hash);
      const pack = readFileSync(snapshot.pack.file);
      const at = pack.indexOf('echo open');
      assert.ok(at > 0);
      pack[at] = 'E'.charCodeAt(0);
      writeFileSync(snapshot.pack.file, pack);
      await assert.rejects(
        WorkCopy.materialize(path.join(base.dir, 'copy-damaged'), snapshot),
        /pack .* is damaged: blob [0-9a-f]{12}… does not match/,
      );
    } finally {
      snapshot.pack.close();
    }
  });
});

describe('WorkCopy.resume: a copy taken over from the state a run left', () => {
  let base: { dir: string; remove: () => void };

  before(() => {
    base = tempBase('resume-kind');
  });

  after(() => base.remove());

  it('does not trust a stamp of another kind than the copy should hold there: a folder kept as a symlink is restored', async () => {
    const tree: Tree = new Map<string, Entry>([
      ['a', dir],
      ['a/x.txt', file('x\n')],
      ['b.txt', file('b\n')],
    ]);
    const workspace = path.join(base.dir, 'ws');
    mkdirSync(workspace);
    writeTree(workspace, tree);
    const runDir = path.join(base.dir, 'run');
    mkdirSync(runDir);
    const { snapshot } = await takeSnapshot({ workspace, ignored: ignoreRule(), runDir });
    try {
      const copy = await WorkCopy.materialize(path.join(base.dir, 'copy'), snapshot);
      const state = copy.state();
      assert.ok(state !== undefined);
      // What a state kept by an earlier version (or planted) could say after a swap: `a` a symlink to a
      // look-alike outside, stamped as it is, and nothing known to undo.
      const outside = path.join(base.dir, 'outside');
      mkdirSync(outside);
      writeFileSync(path.join(outside, 'x.txt'), 'planted\n');
      rmSync(path.join(copy.dir, 'a'), { recursive: true });
      symlinkSync(outside, path.join(copy.dir, 'a'));
      const stamps = new Map(state.stamps);
      stamps.set('a', stampOf(lstatSync(path.join(copy.dir, 'a'))));
      // Settled after the swap, as a write of the copy that kept the symlink's stamp would have been: no
      // stamp is then recent enough to be compared by content.
      await new Promise((resolve) => setTimeout(resolve, 30));
      writeFileSync(path.join(base.dir, 'settled'), '');
      const taken = WorkCopy.resume({
        dir: copy.dir,
        snapshot,
        stamps,
        settledAt: lstatSync(path.join(base.dir, 'settled')).mtimeMs,
        holds: new Map(state.overlay),
        known: { changed: new Set(), extra: new Set() },
      });
      await taken.reset({});
      assert.deepEqual(treeDifferences(expectedCopy(tree, {}), readTree(copy.dir)), []);
    } finally {
      snapshot.pack.close();
    }
  });
});
