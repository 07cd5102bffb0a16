import assert from 'node:assert/strict';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { EscapeError } from '../../src/errors/escape-error.js';
import { ignoreRule } from '../../src/workspace/ignore.js';
import { manifestHash, type ManifestEntry } from '../../src/workspace/manifest.js';
import { takeSnapshot } from '../../src/workspace/snapshot.js';
import { wholeBlobs } from '../../src/worker/materialize.js';
import { takeStableTree, type HeldTree } from '../../src/worker/stable-tree.js';
import { DEFAULT_BOUNDS } from '../../src/worker/workspace-bounds.js';
import { lstatOrNothing } from '../../src/workspace/stamp.js';
import { tempWorkspace } from '../helpers/workspace.js';

type Entries = [string, ManifestEntry][];

/** Every blob any snapshot of these tests read, by hash: the store. */
const store = new Map<string, Buffer>();
const blobs = wholeBlobs(async (hashes) => new Map(hashes.flatMap((hash) => (store.has(hash) ? [[hash, store.get(hash) as Buffer]] : []))));

/** The manifest of `dir` as `submit` records it (its blobs put in the store). */
async function manifestOf(dir: string): Promise<{ manifest: Entries; hash: string; rootMode: number }> {
  const { snapshot } = await takeSnapshot({ workspace: dir, ignored: ignoreRule(), runDir: await tempWorkspace({}) });
  try {
    for (const [, entry] of snapshot.manifest) if (entry.type === 'file') store.set(entry.hash, snapshot.blob(entry.hash));
    return { manifest: [...snapshot.manifest], hash: snapshot.hash, rootMode: snapshot.rootMode };
  } finally {
    snapshot.pack.close();
  }
}

async function take(home: string, source: string, submission = 'sub'): Promise<HeldTree> {
  const { manifest, hash, rootMode } = await manifestOf(source);
  const held = await takeStableTree({ home, submission, manifest, expectedHash: hash, rootMode, blobs, bounds: DEFAULT_BOUNDS });
  assert.ok(!('busy' in held), 'the tree is free');
  const again = await manifestOf(held.tree);
  assert.equal(again.hash, hash, 'the tree holds exactly the manifest');
  return held;
}

async function workspace(): Promise<string> {
  const files: Record<string, string> = { 'edit.txt': 'v1\n', 'del.txt': 'gone soon\n', 'run.sh': 'echo hi\n', 'gone/x.txt': 'x\n' };
  for (let index = 0; index < 20; index += 1) files[`lib/f${index}.txt`] = `file ${index}\n`;
  const dir = await tempWorkspace(files);
  await chmod(path.join(dir, 'run.sh'), 0o755);
  symlinkSync('lib/f1.txt', path.join(dir, 'link'));
  return dir;
}

describe('a stable workspace directory', () => {
  it('rewrites only what the next manifest changes, and removes what it lacks', async () => {
    const source = await workspace();
    const home = path.join(await tempWorkspace({}), 'home');
    const first = await take(home, source);
    assert.equal(first.report.how, 'new');
    first.release();
    assert.ok(existsSync(path.join(home, 'state.json')));
    assert.ok(!existsSync(path.join(home, 'lock')));

    await writeFile(path.join(source, 'edit.txt'), 'v2\n');
    rmSync(path.join(source, 'del.txt'));
    rmSync(path.join(source, 'gone'), { recursive: true });
    await writeFile(path.join(source, 'added.txt'), 'new\n');
    await chmod(path.join(source, 'lib/f2.txt'), 0o600);
    rmSync(path.join(source, 'link'));
    symlinkSync('lib/f3.txt', path.join(source, 'link'));
    const second = await take(home, source);
    // edit.txt, added.txt, f2 (mode), link (target): written; del.txt and gone/ removed; the rest kept.
    assert.deepEqual(second.report, { how: 'reused', written: 4, removed: 2, kept: 20, repaired: 0 });
    assert.ok(!existsSync(path.join(home, 'state.json')), 'no state while held');
    assert.equal(readFileSync(path.join(second.tree, 'edit.txt'), 'utf8'), 'v2\n');
    second.release();
  });

  it('repairs a tree changed on disk between submissions: content, mode, kind, hard links, stray files', async () => {
    const source = await workspace();
    const home = path.join(await tempWorkspace({}), 'home');
    (await take(home, source)).release();
    const tree = path.join(home, 'tree');
    writeFileSync(path.join(tree, 'lib/f0.txt'), 'file 9\n'); // same size, other bytes
    await chmod(path.join(tree, 'run.sh'), 0o644);
    rmSync(path.join(tree, 'lib/f4.txt'));
    mkdirSync(path.join(tree, 'lib/f4.txt'));
    rmSync(path.join(tree, 'lib/f5.txt'));
    const outside = path.join(await tempWorkspace({ 'secret.txt': 'file 5\n' }), 'secret.txt');
    linkSync(outside, path.join(tree, 'lib/f5.txt'));
    rmSync(path.join(tree, 'lib/f6.txt'));
    writeFileSync(path.join(tree, 'stray.txt'), 'not submitted\n');
    await mkdir(path.join(tree, 'stray-dir/deep'), { recursive: true });
    const held = await take(home, source);
    assert.equal(held.report.how, 'reused');
    // f0 (bytes), run.sh (mode), f4 (now a directory), f5 (a hard link), f6 (gone).
    assert.equal(held.report.repaired, 5, JSON.stringify(held.report));
    assert.equal(held.report.removed, 2);
    assert.equal(readFileSync(outside, 'utf8'), 'file 5\n', 'the hard-linked file outside is left alone');
    held.release();
  });

  it('writes the tree afresh when its state is gone (a worker killed while it held it) or unreadable', async () => {
    const source = await workspace();
    const home = path.join(await tempWorkspace({}), 'home');
    await take(home, source); // never released: no state, and a lock of this live process
    const { manifest, hash } = await manifestOf(source);
    const busy = await takeStableTree({
      home,
      submission: 'other',
      manifest,
      expectedHash: hash,
      rootMode: 0o755,
      blobs,
      bounds: DEFAULT_BOUNDS,
    });
    assert.deepEqual(busy, { busy: 'sub' });
    // The lock of a process that is gone is taken over.
    writeFileSync(path.join(home, 'lock'), JSON.stringify({ host: hostname(), pid: 2 ** 22 + 1, submission: 'x' }));
    writeFileSync(path.join(path.join(home, 'tree'), 'lib/f0.txt'), 'changed while nobody held it\n');
    const rebuilt = await take(home, source);
    assert.equal(rebuilt.report.how, 'rebuilt');
    rebuilt.release();
    writeFileSync(path.join(home, 'state.json'), '{"version":1,"entr');
    const again = await take(home, source);
    assert.equal(again.report.how, 'rebuilt');
    again.release();
  });

  it('holds exactly each manifest over random edits of the workspace and random damage to the tree', async () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const names = ['a', 'b', 'c', 'd/e', 'd/f', 'g/h/i'];
    const source = await tempWorkspace({ a: 'a\n', 'd/e': 'e\n' });
    const home = path.join(await tempWorkspace({}), 'home');
    /** One random change at `root/name`: new bytes, gone, a mode, a directory, a symlink. */
    const change = async (root: string, name: string): Promise<void> => {
      const at = path.join(root, name);
      rmSync(at, { recursive: true, force: true });
      // A parent that is a file or a symlink goes first.
      for (let cut = name.lastIndexOf('/'); cut > 0; cut = name.lastIndexOf('/', cut - 1)) {
        const parent = path.join(root, name.slice(0, cut));
        const info = lstatOrNothing(parent);
        if (info !== undefined && !info.isDirectory()) rmSync(parent, { force: true });
      }
      const kind = random(5);
      if (kind === 0) return;
      await mkdir(path.dirname(at), { recursive: true });
      if (kind === 1) writeFileSync(at, `${name} ${random(3)}\n`);
      else if (kind === 2) {
        writeFileSync(at, 'x\n');
        await chmod(at, 0o700);
      } else if (kind === 3) mkdirSync(at);
      else symlinkSync(random(2) === 0 ? 'a' : 'b', at);
    };
    for (let round = 0; round < 25; round += 1) {
      for (let edits = random(3) + 1; edits > 0; edits -= 1) await change(source, names[random(names.length)] as string);
      const held = await take(home, source);
      held.release();
      if (random(3) === 0) await change(held.tree, names[random(names.length)] as string);
    }
  });

  it('refuses a hostile manifest before writing anything', async () => {
    const home = path.join(await tempWorkspace({}), 'home');
    const manifest: Entries = [['../escaped.txt', { type: 'symlink', target: 'x' }]];
    await assert.rejects(
      takeStableTree({
        home,
        submission: 'evil',
        manifest,
        expectedHash: manifestHash(new Map(manifest)),
        rootMode: 0o755,
        blobs,
        bounds: DEFAULT_BOUNDS,
      }),
      EscapeError,
    );
    assert.ok(!existsSync(home));
  });
});
