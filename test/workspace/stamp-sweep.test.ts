import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { inputChanges } from '../../src/workspace/input-changes.js';
import { sameStamp, stampAt, type Stamp } from '../../src/workspace/stamp.js';
import { sweptUnchanged, unchangedAt, warmSweep, type Swept } from '../../src/workspace/stamp-sweep.js';
import { ignoreRule } from '../../src/workspace/ignore.js';
import { takeSnapshot } from '../../src/workspace/snapshot.js';
import { BlobPack } from '../../src/workspace/blob-pack.js';
import { liveChanges } from '../../src/workspace/live-changes.js';
import { contentHash } from '../../src/workspace/manifest.js';
import { WorkCopy } from '../../src/workspace/work-copy.js';
import { readTree, tempBase, treeDifferences } from './tree.js';

const FILES = 2_400;
const DIRS = 24;

/** A copy large enough for the walks to split their `lstat`s, with the stamps of every path ('' is the root). */
function layCopy(dir: string): Map<string, Stamp> {
  for (let d = 0; d < DIRS; d += 1) mkdirSync(path.join(dir, `d${d}`), { recursive: true });
  for (let f = 0; f < FILES; f += 1) writeFileSync(path.join(dir, `d${f % DIRS}/f${f}.txt`), `file ${f}\n`);
  symlinkSync('d0/f0.txt', path.join(dir, 'link'));
  const stamps = new Map<string, Stamp>([['', stampAt(dir) as Stamp]]);
  for (let d = 0; d < DIRS; d += 1) stamps.set(`d${d}`, stampAt(path.join(dir, `d${d}`)) as Stamp);
  for (let f = 0; f < FILES; f += 1) stamps.set(`d${f % DIRS}/f${f}.txt`, stampAt(path.join(dir, `d${f % DIRS}/f${f}.txt`)) as Stamp);
  stamps.set('link', stampAt(path.join(dir, 'link')) as Stamp);
  return stamps;
}

/** The sweep's answer once its second thread is ready (it starts on first need). */
async function sweep(dir: string, stamps: ReadonlyMap<string, Stamp>): Promise<Swept> {
  warmSweep(stamps.size);
  for (let tries = 0; tries < 1000; tries += 1) {
    const answer = await unchangedAt(dir, stamps);
    if (answer !== undefined) return answer;
    await sleep(10);
  }
  throw new Error('the sweep never answered');
}

/**
 * A laid copy whose stamps are older than `settledAt` (none is compared by content) and whose sweep is
 * ready, handed to `body`; removed afterwards.
 */
async function withSweptCopy(
  name: string,
  body: (copy: { dir: string; stamps: Map<string, Stamp>; settledAt: number }) => Promise<void>,
): Promise<void> {
  const { dir: base, remove } = tempBase(`${name}-${process.pid}`);
  try {
    const dir = path.join(base, 'copy');
    const stamps = layCopy(dir);
    await sleep(20);
    const settledAt = Date.now();
    await sweep(dir, stamps);
    await body({ dir, stamps, settledAt });
  } finally {
    remove();
  }
}

/** A large workspace laid in `<base>/ws` a few clock ticks ago, with a run directory `<base>/run`, handed to `body`; removed afterwards. */
async function withLargeWorkspace(
  name: string,
  body: (laid: { base: string; ws: string; runDir: string }) => Promise<void>,
): Promise<void> {
  const { dir: base, remove } = tempBase(`${name}-${process.pid}`);
  try {
    const ws = path.join(base, 'ws');
    const runDir = path.join(base, 'run');
    mkdirSync(runDir);
    layCopy(ws);
    await sleep(20);
    await body({ base, ws, runDir });
  } finally {
    remove();
  }
}

/** Moves folder `name` of `ws` out to `<base>/<name>-outside` and puts a symlink to it in its place. */
function replaceBySymlink(base: string, ws: string, name: string): string {
  const outside = path.join(base, `${name}-outside`);
  renameSync(path.join(ws, name), outside);
  symlinkSync(outside, path.join(ws, name));
  return outside;
}

/** `inputChanges` of a laid copy: every stamped path expected, nothing held by content, no outputs. */
function changedInputsOf(dir: string, stamps: Map<string, Stamp>, settledAt: number): ReturnType<typeof inputChanges> {
  return inputChanges({ dir, stamps, settledAt, holds: () => false, expected: (file) => stamps.has(file), isOutput: () => false });
}

/** What one change does to a path of the copy (what a check or an agent could do there). */
const CHANGES = ['rewrite', 'same-bytes', 'restore-times', 'chmod', 'delete', 'touch', 'to-dir', 'to-symlink', 'swap'] as const;

function change(dir: string, file: string, kind: (typeof CHANGES)[number], other: string): void {
  const target = path.join(dir, file);
  switch (kind) {
    case 'rewrite':
      writeFileSync(target, 'changed\n');
      break;
    case 'same-bytes':
      writeFileSync(target, `file ${file.replace(/^.*\/f(\d+)\.txt$/, '$1')}\n`);
      break;
    case 'restore-times': {
      // Other bytes of the same length, the times set back: only the change time tells.
      const { mtimeNs } = lstatSync(target, { bigint: true });
      writeFileSync(target, readFileSync(target, 'utf8').replace(/\d/g, 'x'));
      const seconds = mtimeNs / 1_000_000_000n;
      const nanoseconds = String(mtimeNs % 1_000_000_000n).padStart(9, '0');
      execFileSync('touch', ['-m', '-d', `@${seconds}.${nanoseconds}`, target]);
      break;
    }
    case 'chmod':
      chmodSync(target, 0o600);
      break;
    case 'delete':
      rmSync(target);
      break;
    case 'touch':
      utimesSync(target, new Date(0), new Date(0));
      break;
    case 'to-dir':
      rmSync(target);
      mkdirSync(target);
      break;
    case 'to-symlink':
      rmSync(target);
      symlinkSync('/etc/passwd', target);
      break;
    case 'swap':
      // Another file's inode under this name.
      renameSync(path.join(dir, other), target);
      break;
  }
}

describe('unchangedAt: the walks of a large copy split between two threads', () => {
  it('says 1 for exactly the paths whose stamp stampAt finds unchanged, in the map order, whatever was done to the others', async () => {
    const { dir: base, remove } = tempBase(`sweep-${process.pid}`);
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.integer({ min: 0, max: FILES - 1 }), { minLength: 1, maxLength: 40 }),
          fc.array(fc.constantFrom(...CHANGES), { minLength: 40, maxLength: 40 }),
          async (picked, kinds) => {
            const dir = path.join(base, `copy-${Math.random().toString(36).slice(2)}`);
            const stamps = layCopy(dir);
            await sleep(20);
            const others = new Set<number>(picked);
            picked.forEach((index, at) => {
              const file = `d${index % DIRS}/f${index}.txt`;
              // A swap takes a file that is not changed otherwise.
              let source = (index + 1) % FILES;
              while (others.has(source)) source = (source + 1) % FILES;
              others.add(source);
              change(dir, file, kinds[at] as (typeof CHANGES)[number], `d${source % DIRS}/f${source}.txt`);
            });
            const answer = await sweep(dir, stamps);
            assert.equal(answer.same.length, stamps.size);
            let index = 0;
            for (const [file, stamp] of stamps) {
              const now = stampAt(file === '' ? dir : path.join(dir, file));
              const same = now !== undefined && sameStamp(now, stamp);
              assert.equal(sweptUnchanged(answer, index, file, stamp), same, `${file}: ${answer.same[index]} against ${String(same)}`);
              index += 1;
            }
            rmSync(dir, { recursive: true, force: true });
          },
        ),
        { numRuns: 8 },
      );
    } finally {
      remove();
    }
  });

  it('a large copy walked in full after hostile changes is reset to exactly the snapshot', () =>
    withLargeWorkspace('sweep-reset', async ({ ws, runDir }) => {
      const copyDir = path.join(runDir, 'check');
      const taken = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir, copyDir });
      try {
        const copy = WorkCopy.adopt(copyDir, taken.snapshot, taken.copyStamps);
        // Handed out (to checks, or an agent): the next reset walks every path.
        await copy.reset({});
        await sleep(20);
        await sweep(copyDir, taken.copyStamps);
        CHANGES.forEach((kind, index) => change(copyDir, `d${(FILES - 1 - index) % DIRS}/f${FILES - 1 - index}.txt`, kind, 'd0/f0.txt'));
        writeFileSync(path.join(copyDir, 'd1/planted.txt'), 'planted');
        const report = await copy.reset({});
        assert.deepEqual(treeDifferences(readTree(ws), readTree(copyDir)), []);
        assert.ok(report.restored >= CHANGES.length, `${report.restored} restored`);
      } finally {
        taken.snapshot.pack.close();
      }
    }));

  it('a map changed while the second thread answers is stamped again where it changed: no change is lost', () =>
    withSweptCopy('sweep-moved', async ({ dir, stamps, settledAt }) => {
      change(dir, 'd8/f2000.txt', 'rewrite', '');
      const found = changedInputsOf(dir, stamps, settledAt);
      // While the sweep runs: one entry moved to the end of the map (same size), another given a new stamp object.
      const moved = stamps.get('d0/f0.txt') as Stamp;
      stamps.delete('d0/f0.txt');
      stamps.set('d0/f0.txt', moved);
      stamps.set('d1/f1.txt', { ...(stamps.get('d1/f1.txt') as Stamp) });
      assert.deepEqual((await found).changed, ['d8/f2000.txt']);
    }));

  it('starts no second thread where this one does not stamp through the binding (--pending-deprecation): no warning, the walk stamps every path', async () => {
    const { dir: base, remove } = tempBase(`sweep-deprecation-${process.pid}`);
    try {
      const dir = path.join(base, 'copy');
      layCopy(dir);
      const sweepModule = new URL('../../src/workspace/stamp-sweep.js', import.meta.url).href;
      const stampModule = new URL('../../src/workspace/stamp.js', import.meta.url).href;
      const script = [
        `const { unchangedAt, warmSweep } = await import(${JSON.stringify(sweepModule)});`,
        `const { stampAt } = await import(${JSON.stringify(stampModule)});`,
        "const { readdirSync } = await import('node:fs');",
        `const dir = ${JSON.stringify(dir)};`,
        'const stamps = new Map();',
        "for (const sub of readdirSync(dir).filter((name) => name.startsWith('d'))) for (const name of readdirSync(dir + '/' + sub)) stamps.set(sub + '/' + name, stampAt(dir + '/' + sub + '/' + name));",
        'warmSweep(stamps.size);',
        'await new Promise((resolve) => setTimeout(resolve, 300));',
        'console.log(String(await unchangedAt(dir, stamps)));',
      ].join('\n');
      const output = execFileSync(process.execPath, ['--pending-deprecation', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      assert.equal(output.trim(), 'undefined');
    } finally {
      remove();
    }
  });

  it('leaves a small walk to stamp its own paths', async () => {
    const { dir, remove } = tempBase(`sweep-small-${process.pid}`);
    try {
      writeFileSync(path.join(dir, 'a.txt'), 'a');
      assert.equal(await unchangedAt(dir, new Map([['a.txt', stampAt(path.join(dir, 'a.txt')) as Stamp]])), undefined);
    } finally {
      remove();
    }
  });

  it('a sweep whose second thread is busy with another is done by this thread, with the same answer', async () => {
    const { dir: base, remove } = tempBase(`sweep-busy-${process.pid}`);
    try {
      const dir = path.join(base, 'copy');
      const stamps = layCopy(dir);
      await sleep(20);
      await sweep(dir, stamps);
      change(dir, 'd4/f4.txt', 'rewrite', '');
      change(dir, `d${(FILES - 2) % DIRS}/f${FILES - 2}.txt`, 'delete', '');
      // A long sweep of paths that are not there keeps the second thread busy while the next one runs.
      const missing = new Map<string, Stamp>();
      for (let index = 0; index < 200_000; index += 1) missing.set(`gone/${index}`, stamps.get('d0/f0.txt') as Stamp);
      const [busy, answer] = await Promise.all([unchangedAt(dir, missing), unchangedAt(dir, stamps)]);
      assert.equal(
        busy?.same.some((byte) => byte === 1),
        false,
      );
      let index = 0;
      for (const [file, stamp] of stamps) {
        const expected =
          file !== 'd4/f4.txt' && file !== `d${(FILES - 2) % DIRS}/f${FILES - 2}.txt` && !(file === '' || /^d\d+$/.test(file));
        if (file !== '' && !/^d\d+$/.test(file)) assert.equal(sweptUnchanged(answer, index, file, stamp), expected, file);
        index += 1;
      }
    } finally {
      remove();
    }
  });

  it('the snapshot of a large workspace against its previous one equals one from scratch, and never lists through a folder replaced by a symlink', () =>
    withLargeWorkspace('sweep-snapshot', async ({ base, ws, runDir }) => {
      const pack = BlobPack.create(path.join(runDir, 'cache.pack'));
      try {
        const first = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir, pack });
        await sleep(20);
        await sweep(ws, first.snapshot.live);
        CHANGES.forEach((kind, index) => change(ws, `d${(FILES - 1 - index) % DIRS}/f${FILES - 1 - index}.txt`, kind, 'd0/f0.txt'));
        // Every path below the folder keeps its old stamp through the symlink.
        const outside = replaceBySymlink(base, ws, 'd2');
        const previous = { manifest: first.snapshot.manifest, live: first.snapshot.live, startedAt: first.startedAt };
        const second = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir, pack, previous });
        const scratchDir = path.join(base, 'scratch');
        mkdirSync(scratchDir);
        const scratch = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir: scratchDir });
        scratch.snapshot.pack.close();
        const sorted = (manifest: ReadonlyMap<string, unknown>): string =>
          JSON.stringify([...manifest].sort(([a], [b]) => (a < b ? -1 : 1)));
        assert.equal(sorted(second.snapshot.manifest), sorted(scratch.snapshot.manifest));
        assert.equal(second.snapshot.hash, scratch.snapshot.hash);
        assert.deepEqual(second.snapshot.manifest.get('d2'), { type: 'symlink', target: outside });
        assert.equal([...second.snapshot.manifest.keys()].filter((file) => file.startsWith('d2/')).length, 0);
        assert.ok(second.hashed <= CHANGES.length, `${second.hashed} hashed`);
      } finally {
        pack.close();
      }
    }));

  it('a folder swapped for a symlink while the snapshot sweeps is never read through, though its sweep found it unchanged', () =>
    withLargeWorkspace('sweep-swap', async ({ base, ws, runDir }) => {
      // Enough paths that this thread's part of the sweep spans turns of the event loop.
      mkdirSync(path.join(ws, 'many'));
      for (let index = 0; index < 9_000; index += 1) writeFileSync(path.join(ws, `many/m${index}`), '');
      mkdirSync(path.join(ws, 'z'));
      writeFileSync(path.join(ws, 'z/f'), 'public');
      const outside = path.join(base, 'outside');
      mkdirSync(outside);
      writeFileSync(path.join(outside, 'f'), 'SECRET');
      await sleep(20);
      const pack = BlobPack.create(path.join(runDir, 'cache.pack'));
      try {
        const first = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir, pack });
        // Changed since that snapshot: the next one reads it.
        writeFileSync(path.join(ws, 'z/f'), 'changed');
        await sleep(20);
        await sweep(ws, first.snapshot.live);
        // In the first turn of the event loop the snapshot gives up (while it sweeps): z becomes a symlink to outside.
        setImmediate(() => {
          renameSync(path.join(ws, 'z'), path.join(base, 'z-moved'));
          symlinkSync(outside, path.join(ws, 'z'));
        });
        const previous = { manifest: first.snapshot.manifest, live: first.snapshot.live, startedAt: first.startedAt, ignore: 'k' };
        const secret = contentHash('SECRET');
        try {
          const second = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir, pack, previous, ignoreKey: 'k' });
          assert.deepEqual(second.snapshot.manifest.get('z'), { type: 'symlink', target: outside });
          assert.equal(second.snapshot.manifest.has('z/f'), false);
          for (const entry of second.snapshot.manifest.values()) assert.notEqual(entry.type === 'file' ? entry.hash : '', secret);
        } catch (error) {
          assert.match((error as Error).message, /changed while the snapshot was taken/);
        }
      } finally {
        pack.close();
      }
    }));

  it('liveChanges of a large workspace names exactly the changed paths, all of them below a folder replaced by a symlink to a look-alike', () =>
    withLargeWorkspace('sweep-live', async ({ base, ws, runDir }) => {
      const { snapshot } = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir });
      try {
        await sleep(20);
        await sweep(ws, snapshot.live);
        change(ws, 'd3/f3.txt', 'restore-times', '');
        change(ws, 'd5/f2381.txt', 'delete', '');
        change(ws, 'd7/f7.txt', 'to-symlink', '');
        writeFileSync(path.join(ws, 'd11/new.txt'), 'new');
        replaceBySymlink(base, ws, 'd2');
        const below = [...snapshot.manifest.keys()].filter((file) => file.startsWith('d2/'));
        assert.ok(below.length > 0);
        assert.deepEqual(await liveChanges(snapshot), ['d11/new.txt', 'd2', ...below, 'd3/f3.txt', 'd5/f2381.txt', 'd7/f7.txt'].sort());
      } finally {
        snapshot.pack.close();
      }
    }));

  it('inputChanges of a large copy finds every changed input and every created entry, as a walk on one thread does', () =>
    withSweptCopy('sweep-inputs', async ({ dir, stamps, settledAt }) => {
      change(dir, 'd3/f3.txt', 'rewrite', '');
      change(dir, 'd5/f2381.txt', 'delete', '');
      change(dir, `d${(FILES - 1) % DIRS}/f${FILES - 1}.txt`, 'chmod', '');
      change(dir, 'd7/f7.txt', 'to-symlink', '');
      chmodSync(path.join(dir, 'd9'), 0o700);
      writeFileSync(path.join(dir, 'd11/planted.txt'), 'planted');
      const found = await changedInputsOf(dir, stamps, settledAt);
      assert.deepEqual(found.changed, ['d3/f3.txt', 'd5/f2381.txt', 'd7/f7.txt', 'd9', `d${(FILES - 1) % DIRS}/f${FILES - 1}.txt`].sort());
      assert.deepEqual([...found.drift.extra], ['d11/planted.txt']);
    }));
});
