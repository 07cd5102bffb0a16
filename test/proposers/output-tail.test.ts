import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readTail, tailOf } from '../../src/proposers/output-tail.js';
import { tempDir } from '../helpers/workspace.js';

describe('the tail of what a proposer wrote', () => {
  it('keeps the last bytes whole, cut on a UTF-8 character boundary, and counts what it dropped', () => {
    assert.deepEqual(tailOf('short', 16), { text: 'short', droppedBytes: 0 });
    // "é" is two bytes: a cut 3 bytes from the end lands inside the first one, which is dropped whole.
    assert.deepEqual(tailOf('éé', 3), { text: 'é', droppedBytes: 2 });
    // "€" is three bytes: 5 of "a€€" (7 bytes) would start inside the first €.
    assert.deepEqual(tailOf('a€€', 5), { text: '€', droppedBytes: 4 });
    const long = tailOf(`${'x'.repeat(20_000)}end`, 16_384);
    assert.equal(Buffer.byteLength(long.text), 16_384);
    assert.equal(long.droppedBytes, 20_003 - 16_384);
    assert.ok(long.text.endsWith('end'));
    assert.throws(() => tailOf('x', -1), { name: 'TypeError', message: 'Expected `cap` to be a non-negative integer, got -1' });
  });

  describe('of a file', () => {
    let dir: string;
    before(async () => {
      dir = await tempDir('redline-tail-');
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('reads only the end of a regular file, on a character boundary', async () => {
      const file = path.join(dir, 'transcript.log');
      await writeFile(file, `${'ü'.repeat(40)}last line\n`);
      // 40 × 2 bytes + 10: a cap of 15 starts at byte 75 of 90, inside the "ü" at 74–75, which is dropped whole.
      assert.deepEqual(await readTail(file, 15), { text: 'üülast line\n', droppedBytes: 76 });
      assert.deepEqual(await readTail(file, 1000), { text: `${'ü'.repeat(40)}last line\n`, droppedBytes: 0 });
    });

    it('reads nothing that is not a regular file there: none, a symlink (not followed), a FIFO (without waiting)', async () => {
      assert.equal(await readTail(path.join(dir, 'none'), 100), undefined);
      const secret = path.join(dir, 'secret');
      await writeFile(secret, 'not for the ledger');
      await symlink(secret, path.join(dir, 'link'));
      assert.equal(await readTail(path.join(dir, 'link'), 100), undefined);
      execFileSync('mkfifo', [path.join(dir, 'fifo')]);
      assert.equal(await readTail(path.join(dir, 'fifo'), 100), undefined);
    });
  });
});
