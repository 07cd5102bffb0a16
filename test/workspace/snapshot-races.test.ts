import assert from 'node:assert/strict';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ignoreRule } from '../../src/workspace/ignore.js';
import { contentHash } from '../../src/workspace/manifest.js';
import { takeSnapshot } from '../../src/workspace/snapshot.js';
import { tempBase } from './tree.js';

// A workspace changed while its snapshot is taken: the walk reads files by path, so a folder replaced by a
// symlink while its files are read could hand the snapshot bytes from anywhere. The ignore rule, which the
// walk asks of each path as it meets it, is the hook that changes the workspace at an exact point of the walk.

/** The ignore rule of a walk that calls `then` once, when it meets `at`. */
function meeting(at: string, then: () => void): (file: string) => boolean {
  const rule = ignoreRule();
  let done = false;
  return (file) => {
    if (file === at && !done) {
      done = true;
      then();
    }
    return rule(file);
  };
}

describe('takeSnapshot of a workspace changed while it is taken', () => {
  it('a folder swapped for a symlink to outside while its files are read fails the snapshot, naming it: nothing from outside is taken', async () => {
    const { dir: base, remove } = tempBase(`race-symlink-${process.pid}`);
    try {
      const ws = path.join(base, 'ws');
      const outside = path.join(base, 'outside');
      mkdirSync(path.join(ws, 'z'), { recursive: true });
      mkdirSync(outside);
      for (let index = 0; index < 100; index += 1) {
        writeFileSync(path.join(ws, 'z', `f${String(index).padStart(3, '0')}`), 'public');
        writeFileSync(path.join(outside, `f${String(index).padStart(3, '0')}`), 'SECRET');
      }
      const runDir = path.join(base, 'run');
      mkdirSync(runDir);
      const ignored = meeting('z/f050', () => {
        renameSync(path.join(ws, 'z'), path.join(base, 'z-moved'));
        symlinkSync(outside, path.join(ws, 'z'));
      });
      await assert.rejects(takeSnapshot({ workspace: ws, ignored, runDir }), /z \(changed while the snapshot was taken\)/);
    } finally {
      remove();
    }
  });

  it('a folder replaced by another folder after the walk met it is taken as it is when listed', async () => {
    const { dir: base, remove } = tempBase(`race-folder-${process.pid}`);
    try {
      const ws = path.join(base, 'ws');
      mkdirSync(path.join(ws, 'b'), { recursive: true });
      writeFileSync(path.join(ws, 'b/x'), 'old');
      writeFileSync(path.join(ws, 'c.txt'), 'c');
      const runDir = path.join(base, 'run');
      mkdirSync(runDir);
      // Met in the root's (sorted) listing before `c.txt`, listed after it: a tool swaps in a new folder meanwhile.
      const ignored = meeting('c.txt', () => {
        renameSync(path.join(ws, 'b'), path.join(base, 'b-old'));
        mkdirSync(path.join(ws, 'b'), { mode: 0o750 });
        writeFileSync(path.join(ws, 'b/y'), 'new');
      });
      const { snapshot } = await takeSnapshot({ workspace: ws, ignored, runDir });
      try {
        assert.deepEqual([...snapshot.manifest.keys()].sort(), ['b', 'b/y', 'c.txt']);
        assert.deepEqual(snapshot.manifest.get('b'), { type: 'dir', mode: 0o750 });
        assert.deepEqual(snapshot.manifest.get('b/y'), { type: 'file', mode: 0o644, size: 3, hash: contentHash('new') });
      } finally {
        snapshot.pack.close();
      }
    } finally {
      remove();
    }
  });
});
