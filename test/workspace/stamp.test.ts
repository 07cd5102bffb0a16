import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { stampAt, stampOf } from '../../src/workspace/stamp.js';
import { tempDir } from '../helpers/workspace.js';

describe('stampAt (the walks’ lstat)', () => {
  it('gives exactly the stamp lstatSync gives, for every kind of entry, and nothing where nothing is', async () => {
    const dir = await tempDir('redline-stamp-');
    writeFileSync(path.join(dir, 'file.txt'), 'text');
    chmodSync(path.join(dir, 'file.txt'), 0o4755);
    // Times with a fraction of a millisecond, and before 1970.
    utimesSync(path.join(dir, 'file.txt'), 1.5e9 + 0.123456, -86_400.25);
    mkdirSync(path.join(dir, 'folder'), { mode: 0o700 });
    symlinkSync('file.txt', path.join(dir, 'link'));
    symlinkSync('missing', path.join(dir, 'dangling'));
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    for (const name of ['file.txt', 'folder', 'link', 'dangling', 'fifo', '.'])
      assert.deepEqual(stampAt(path.join(dir, name)), stampOf(lstatSync(path.join(dir, name))), name);
    assert.deepEqual(
      ['file.txt', 'folder', 'link', 'fifo'].map((name) => stampAt(path.join(dir, name))?.kind),
      ['file', 'dir', 'symlink', 'other'],
    );
    // Gone, below a file (ENOTDIR), a name too long: nothing there.
    assert.equal(stampAt(path.join(dir, 'gone')), undefined);
    assert.equal(stampAt(path.join(dir, 'file.txt', 'below')), undefined);
    assert.equal(stampAt(path.join(dir, 'x'.repeat(300))), undefined);
    // A path with a NUL is refused, as lstatSync refuses it (the binding would read up to the NUL).
    assert.throws(() => stampAt(`${path.join(dir, 'file.txt')}\0x`), { code: 'ERR_INVALID_ARG_VALUE' });
    // Any other failure is thrown, as lstatSync throws it.
    chmodSync(path.join(dir, 'folder'), 0o000);
    if (process.getuid?.() !== 0) assert.throws(() => stampAt(path.join(dir, 'folder', 'x')), { code: 'EACCES' });
    chmodSync(path.join(dir, 'folder'), 0o700);
  });
});
