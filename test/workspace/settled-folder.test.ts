import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { settledFolderStamp } from '../../src/workspace/settled-folder.js';
import { sameStamp, stampOf } from '../../src/workspace/stamp.js';
import { tempBase } from './tree.js';

// A copy's folder is stamped only once it holds what it should: a later walk trusts an unchanged stamp,
// so an entry created before the stamp was taken would never be looked at again.
describe('settledFolderStamp', () => {
  it('removes what the folder should not hold (files, folders, symlinks) and stamps it after', () => {
    const { dir: root, remove } = tempBase('settled');
    try {
      mkdirSync(path.join(root, 'src/planted-dir/deep'), { recursive: true });
      writeFileSync(path.join(root, 'src/a.js'), 'a');
      writeFileSync(path.join(root, 'src/conftest.py'), 'planted');
      writeFileSync(path.join(root, 'src/planted-dir/deep/x'), 'planted');
      symlinkSync('/etc', path.join(root, 'src/link'));
      const stamp = settledFolderStamp(root, 'src', (file) => file === 'src/a.js');
      assert.deepEqual(readdirSync(path.join(root, 'src')), ['a.js']);
      assert.ok(existsSync('/etc'), 'a symlink is removed, never followed');
      assert.ok(stamp !== undefined && sameStamp(stamp, stampOf(lstatSync(path.join(root, 'src')))));
      // The root, with what it should hold.
      writeFileSync(path.join(root, 'planted'), 'planted');
      settledFolderStamp(root, '', (file) => file === 'src');
      assert.deepEqual(readdirSync(root), ['src']);
    } finally {
      remove();
    }
  });

  it('gives nothing where no folder is', () => {
    const { dir: root, remove } = tempBase('settled-none');
    try {
      writeFileSync(path.join(root, 'file'), 'x');
      assert.equal(
        settledFolderStamp(root, 'missing', () => true),
        undefined,
      );
      assert.equal(
        settledFolderStamp(root, 'file', () => true),
        undefined,
      );
    } finally {
      remove();
    }
  });
});
