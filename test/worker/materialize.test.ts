import assert from 'node:assert/strict';
import { existsSync, lstatSync, readlinkSync, renameSync, symlinkSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { EscapeError } from '../../src/errors/escape-error.js';
import { ignoreRule } from '../../src/workspace/ignore.js';
import { contentHash, manifestHash, type ManifestEntry } from '../../src/workspace/manifest.js';
import { takeSnapshot } from '../../src/workspace/snapshot.js';
import { materialize, settleDirs, wholeBlobs } from '../../src/worker/materialize.js';
import { tempWorkspace } from '../helpers/workspace.js';

type Entries = (readonly [string, ManifestEntry])[];

const BYTES = Buffer.from('pwned\n');
const file = (): ManifestEntry => ({ type: 'file', mode: 0o644, size: BYTES.length, hash: contentHash(BYTES) });
const blobs = wholeBlobs(async (hashes) => new Map(hashes.map((hash) => [hash, BYTES])));

/** Materializes `entries` into `<dir>/tree` and returns what was thrown. */
async function attempt(dir: string, entries: Entries, source = blobs): Promise<unknown> {
  const target = path.join(dir, 'tree');
  return materialize({ target, manifest: entries, expectedHash: manifestHash(new Map(entries)), rootMode: 0o755, blobs: source }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('materialize', () => {
  it('writes back exactly the tree a snapshot recorded: contents, modes, symlinks inside it', async () => {
    const source = await tempWorkspace({ 'src/a.txt': 'a\n', 'src/deep/b.sh': 'echo b\n', 'same.txt': 'a\n' });
    await chmod(path.join(source, 'src/deep/b.sh'), 0o755);
    symlinkSync('src/a.txt', path.join(source, 'link'));
    const runDir = await tempWorkspace({});
    const { snapshot } = await takeSnapshot({ workspace: source, ignored: ignoreRule(), runDir });
    const target = path.join(await tempWorkspace({}), 'tree');
    await materialize({
      target,
      manifest: [...snapshot.manifest],
      expectedHash: snapshot.hash,
      rootMode: snapshot.rootMode,
      blobs: wholeBlobs(async (hashes) => new Map(hashes.map((hash) => [hash, snapshot.blob(hash)]))),
    });
    snapshot.pack.close();
    const again = await takeSnapshot({ workspace: target, ignored: ignoreRule(), runDir: await tempWorkspace({}) });
    again.snapshot.pack.close();
    assert.equal(again.snapshot.hash, snapshot.hash);
    assert.equal(readlinkSync(path.join(target, 'link')), 'src/a.txt');
    assert.equal(lstatSync(path.join(target, 'src/deep/b.sh')).mode & 0o777, 0o755);
  });

  it('gives folders their modes through themselves: one swapped for a symlink to outside fails, naming it, and the outside keeps its mode', async () => {
    const dir = await tempWorkspace({ 'tree/sealed/key': 'k\n', 'outside/.keep': '' });
    const tree = path.join(dir, 'tree');
    // A process racing the write moves the folder out and leaves a symlink to it in its place.
    renameSync(path.join(tree, 'sealed'), path.join(dir, 'outside/sealed'));
    symlinkSync(path.join(dir, 'outside/sealed'), path.join(tree, 'sealed'));
    const entries: Entries = [['sealed', { type: 'dir', mode: 0o555 }]];
    assert.throws(() => settleDirs(tree, entries, 0o755), {
      message: `${path.join(tree, 'sealed')} is no longer a folder: something replaced it while the copy was written`,
    });
    assert.equal(lstatSync(path.join(dir, 'outside/sealed')).mode & 0o777, 0o755);
  });

  it('refuses paths that leave the tree, .git, and symlinks leading out, leaving nothing behind', async () => {
    const hostile: Entries[] = [
      [['../escaped.txt', file()]],
      [['a/../../escaped.txt', file()]],
      [['/tmp/escaped.txt', file()]],
      [['a//b.txt', file()]],
      [['.git/hooks/post-checkout', file()]],
      [['src/.GIT/config', file()]],
      [['out', { type: 'symlink', target: '/etc' }]],
      [['src/up', { type: 'symlink', target: '../../..' }]],
      [['self', { type: 'symlink', target: '.' }]],
    ];
    for (const entries of hostile) {
      const dir = await tempWorkspace({});
      const error = await attempt(dir, entries);
      assert.ok(error instanceof EscapeError, `${JSON.stringify(entries[0]?.[0])}: ${String(error)}`);
      assert.deepEqual(await readdir(dir), [], `${JSON.stringify(entries[0]?.[0])} left nothing`);
      assert.equal(existsSync(path.join(path.dirname(dir), 'escaped.txt')), false);
    }
  });

  it('refuses a path through a symlink or a file of the same tree, and bytes that do not match their hash', async () => {
    const dir = await tempWorkspace({});
    const outside = await tempWorkspace({});
    // A symlink entry and a file below it: written, the link would replace the directory and drop the file.
    const through: Entries = [
      ['src/lnk', { type: 'symlink', target: 'sub' }],
      ['src/lnk/x.js', file()],
      ['src/sub', { type: 'dir', mode: 0o755 }],
    ];
    const refused = await attempt(dir, through);
    assert.ok(refused instanceof EscapeError, String(refused));
    assert.equal(refused.file, 'src/lnk/x.js');
    assert.match(refused.message, /"src\/lnk\/x\.js" goes through "src\/lnk", a symlink/);
    assert.deepEqual(await readdir(dir), []);
    const belowFile = await attempt(dir, [
      ['a', file()],
      ['a/b', file()],
    ]);
    assert.match(String(belowFile), /"a\/b" goes through "a", a file/);
    assert.deepEqual(await readdir(dir), []);
    assert.deepEqual(await readdir(outside), []);
    const forged = await tempWorkspace({});
    const error = await attempt(
      forged,
      [['a.txt', file()]],
      wholeBlobs(async (hashes) => new Map(hashes.map((hash) => [hash, Buffer.from('other')]))),
    );
    assert.match(String(error), /Expected the blob .* got other bytes/);
    assert.deepEqual(await readdir(forged), []);
  });

  it('refuses a manifest that is not the one its hash names, and keeps a tree another run materialized', async () => {
    const dir = await tempWorkspace({});
    const target = path.join(dir, 'tree');
    const entries: Entries = [['a.txt', file()]];
    await assert.rejects(
      materialize({ target, manifest: entries, expectedHash: '0'.repeat(64), rootMode: 0o755, blobs }),
      /Expected a manifest with the hash/,
    );
    await mkdir(target);
    await writeFile(path.join(target, 'a.txt'), 'first\n');
    await materialize({ target, manifest: entries, expectedHash: manifestHash(new Map(entries)), rootMode: 0o755, blobs });
    assert.equal(await readFile(path.join(target, 'a.txt'), 'utf8'), 'first\n');
    assert.deepEqual(await readdir(dir), ['tree']);
  });
});
