import assert from 'node:assert/strict';
import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { CopyWriter } from '../../src/workspace/copy-writer.js';
import { sameStamp, stampOf, type Stamp } from '../../src/workspace/stamp.js';
import { tempBase } from './tree.js';

// The copy writer creates a copy's small files on a second thread, in batches. Its thread can die (out of
// memory, say): whoever writes or waits must then get an error, never wait for an answer that cannot come.

const FILES = 1_300;

async function writeAll(writer: CopyWriter, dir: string): Promise<void> {
  for (let index = 0; index < FILES; index += 1)
    await writer.write({ target: path.join(dir, `f${index}`), file: `f${index}`, bytes: Buffer.from(`${index}\n`), mode: 0o644 });
}

describe('CopyWriter: small files written on a second thread', () => {
  let base: { dir: string; remove: () => void };
  const post = Worker.prototype.postMessage;

  beforeEach(() => {
    base = tempBase('copy-writer');
  });

  afterEach(() => {
    Worker.prototype.postMessage = post;
    base.remove();
  });

  it('writes every file queued, with the stamps the files have', async () => {
    const stamps = new Map<string, Stamp>();
    const writer = new CopyWriter({ umask: 0o022, stamps });
    await writeAll(writer, base.dir);
    await writer.finish();
    assert.equal(stamps.size, FILES);
    for (const index of [0, 700, FILES - 1]) {
      const target = path.join(base.dir, `f${index}`);
      assert.equal(readFileSync(target, 'utf8'), `${index}\n`);
      assert.ok(sameStamp(stamps.get(`f${index}`) as Stamp, stampOf(lstatSync(target))));
    }
  });

  it(
    'a thread that dies after its first batch fails the writes and finish instead of leaving them waiting',
    { timeout: 20_000 },
    async () => {
      let sent = 0;
      // The second batch ends the thread instead of reaching it.
      Worker.prototype.postMessage = function (this: Worker, ...args: Parameters<Worker['postMessage']>): void {
        sent += 1;
        if (sent === 2) {
          void this.terminate();
          return;
        }
        post.apply(this, args);
      };
      const writer = new CopyWriter({ umask: 0o022, stamps: new Map() });
      await assert.rejects(
        (async () => {
          await writeAll(writer, base.dir);
          await writer.finish();
        })(),
        /writing the copy failed: its thread exited/,
      );
      await assert.rejects(writer.finish(), /writing the copy failed: its thread exited/);
    },
  );
});
