import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { ignoreRule } from '../../src/workspace/ignore.js';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';
import { BlobPack } from '../../src/workspace/blob-pack.js';
import { contentHash } from '../../src/workspace/manifest.js';
import { takeSnapshot, type PreviousSnapshot } from '../../src/workspace/snapshot.js';
import { stampOf } from '../../src/workspace/stamp.js';
import { manifestFrom, slotsFrom, stampsFrom } from '../../src/workspace/state-columns.js';
import { cacheEntries, entryDirOf, pruneCache } from '../../src/workspace/workspace-cache.js';
import { readStateFile, writeStateFile } from '../../src/workspace/state-file.js';
import { treeSpec, type TreeSpec } from './arbitraries.js';
import { applyCheckAction, checkAction } from './check-actions.js';
import { startRun, withLaidWorkspace, withRun, type LayOptions } from './laid-workspace.js';
import { alwaysIgnored, expectedCopy, readTree, tempBase, treeDifferences } from './tree.js';

// Two runs on one workspace through a cache folder (docs/workspaces.md): the second snapshot is taken
// against the first and the first run's copy is reset to it. More cases for a longer hunt:
// WORKSPACE_PROPERTY_RUNS=200 node --import tsx --test test/workspace/cache.test.ts
const NUM_RUNS = Number(process.env.WORKSPACE_PROPERTY_RUNS ?? 15);

const laying = (spec: TreeSpec): LayOptions => ({ prefix: `cache-${process.pid}`, spec });

/** A snapshot of `ws` taken from scratch, without a cache: what a cached one must equal. */
async function fromScratch(ws: string, scratch: string): Promise<{ hash: string; entries: string }> {
  const runDir = path.join(scratch, 'from-scratch');
  mkdirSync(runDir, { recursive: true });
  const { snapshot } = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir });
  snapshot.pack.close();
  rmSync(runDir, { recursive: true, force: true });
  return { hash: snapshot.hash, entries: JSON.stringify([...snapshot.manifest].sort(([a], [b]) => (a < b ? -1 : 1))) };
}

const simple = (): TreeSpec => ({
  dirs: ['src', 'lib/a'],
  files: [
    { dir: 0, name: 'x.txt', content: new TextEncoder().encode('top\n'), mode: 0o644 },
    { dir: 1, name: 'y.js', content: new TextEncoder().encode('export {};\n'), mode: 0o644 },
    { dir: 2, name: 'run.sh', content: new TextEncoder().encode('#!/bin/sh\n'), mode: 0o755 },
  ],
  links: [{ dir: 1, name: 'l1', to: { kind: 'file', pick: 0 } }],
});

describe('RunWorkspace with a cache folder: the copy outlives the run', () => {
  it('a second run on an unchanged workspace reuses the copy and hashes nothing', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      const firstHash = await withRun(laid, 'one', async (first) => {
        assert.equal(first.report.copy, 'fresh');
        assert.ok(first.report.hashed > 0);
        await first.checkCopy({ 'src/y.js': 'changed\n', 'new.txt': 'n' });
        return first.snapshot.hash;
      });
      const recorded = path.join(entryDirOf(laid.cache, laid.ws), 'snapshot.state');
      const before = lstatSync(recorded).ino;
      await withRun(laid, 'two', async (second) => {
        // Nothing changed: the last snapshot's record stands, not rewritten.
        assert.equal(lstatSync(recorded).ino, before);
        // The first run's candidate is undone (two paths rewritten, one removed), nothing is read again.
        assert.deepEqual(second.report, { hashed: 0, copy: 'reused', restored: 2 });
        assert.equal(second.snapshot.hash, firstHash);
        const { dir } = await second.checkCopy({});
        assert.equal(dir, path.join(entryDirOf(laid.cache, laid.ws), 'copy'));
        assert.deepEqual(treeDifferences(expectedCopy(laid.tree, {}), readTree(dir)), []);
      });
      const [entry] = cacheEntries(laid.cache);
      assert.equal(entry?.workspace, laid.ws);
      assert.equal(entry?.inUse, false);
      assert.ok((entry?.bytes ?? 0) > 0);
    }));

  it('after random edits of the workspace and a messy first run, the snapshot equals one taken from scratch and the copy holds it', async (t) => {
    let hashed = 0;
    let reused = 0;
    await fc.assert(
      fc.asyncProperty(
        treeSpec,
        fc.array(checkAction, { maxLength: 4 }),
        fc.array(checkAction, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (spec, mess, edits, settle) =>
          withLaidWorkspace(laying(spec), async (laid) => {
            const log: string[] = [];
            // Laid a few clock ticks before the first snapshot, its files are not racily clean: the second
            // snapshot trusts their stamps. Else it reads them again.
            if (settle) await sleep(20);
            await withRun(laid, 'one', async (first) => {
              const { dir } = await first.checkCopy({ 'fresh/n.txt': 'n' });
              // A check leaves the copy messy; the next run must undo it.
              mess.forEach((action, index) => log.push(`check: ${applyCheckAction(dir, laid.lookalikes, action, index)}`));
            });
            // The workspace is edited at once (same clock tick as the first snapshot, often): files edited in
            // place with their times set back, deleted, created, chmodded, symlinks retargeted.
            edits.forEach((action, index) => log.push(`edit: ${applyCheckAction(laid.ws, laid.lookalikes, action, 100 + index)}`));
            await withRun(laid, 'two', async (second) => {
              const expected = await fromScratch(laid.ws, laid.scratch);
              assert.equal(second.snapshot.hash, expected.hash, log.join('; '));
              assert.equal(JSON.stringify([...second.snapshot.manifest].sort(([a], [b]) => (a < b ? -1 : 1))), expected.entries);
              assert.notEqual(second.report.copy, 'fresh');
              if (second.report.copy === 'reused') reused += 1;
              hashed += second.report.hashed;
              const { dir } = await second.checkCopy({});
              const now = new Map([...readTree(laid.ws)].filter(([file]) => !alwaysIgnored(file)));
              assert.deepEqual(treeDifferences(now, readTree(dir)), [], log.join('; '));
            });
          }),
      ),
      { numRuns: NUM_RUNS },
    );
    assert.ok(reused > 0, 'no case reused the copy');
    t.diagnostic(`${NUM_RUNS} cases: ${reused} reused the copy, ${hashed} files hashed by the second snapshots`);
  });

  it('a cached copy changed between runs is repaired, and one whose state is missing, half-written or not its snapshot is rebuilt', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      const entry = entryDirOf(laid.cache, laid.ws);
      const verify = async (run: RunWorkspace): Promise<void> => {
        const { dir } = await run.checkCopy({}, { verify: true });
        assert.deepEqual(treeDifferences(expectedCopy(laid.tree, {}), readTree(dir)), []);
      };
      await (await startRun(laid, 'one')).dispose();
      // A second run a few clock ticks later settles the copy again: its stamps are older than that.
      await sleep(20);
      await (await startRun(laid, 'one-b')).dispose();
      // Changed in place, same size, between runs: its stamp tells, once every path is compared.
      writeFileSync(path.join(entry, 'copy/x.txt'), 'TOP\n');
      writeFileSync(path.join(entry, 'copy/planted.txt'), 'planted');
      let run = await startRun(laid, 'two');
      assert.equal(run.report.copy, 'reused');
      // The start looks at the folders (the planted file goes); the rewritten file waits for the full walk.
      assert.equal(run.report.restored, 1);
      await verify(run);
      await run.dispose();
      // Half-written: its state cut short.
      const state = readFileSync(path.join(entry, 'copy.state'));
      writeFileSync(path.join(entry, 'copy.state'), state.subarray(0, state.length / 2));
      writeFileSync(path.join(entry, 'copy/x.txt'), 'TOP\n');
      run = await startRun(laid, 'three');
      assert.equal(run.report.copy, 'rebuilt');
      await verify(run);
      await run.dispose();
      // A state recorded for another snapshot.
      writeStateFile(path.join(entry, 'copy.state'), { ...(readStateFile(path.join(entry, 'copy.state')) as object), snapshot: '0' });
      run = await startRun(laid, 'four');
      assert.equal(run.report.copy, 'rebuilt');
      await verify(run);
      // A run killed while it held the entry leaves no state: the copy is not trusted.
      assert.equal(existsSync(path.join(entry, 'copy.state')), false);
      await run.dispose();
      // The pack's bytes damaged: a blob read back for the copy no longer matches, so the run stops rather than copy it.
      rmSync(path.join(entry, 'copy'), { recursive: true });
      const pack = readdirSync(entry).find((name) => name.endsWith('.pack')) as string;
      writeFileSync(path.join(entry, pack), Buffer.alloc(readFileSync(path.join(entry, pack)).length, 0x20));
      await assert.rejects(startRun(laid, 'five'), /damaged/);
    }));

  it('a second run readies the check copy by its folders, and a file changed between runs is found by the walk after its first use, then undone', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      const entry = entryDirOf(laid.cache, laid.ws);
      // Two runs, a few clock ticks apart, and a check set in the second (the walk after it is kept): the
      // copy's stamps are then older than its last reset, so a later write cannot hide behind them.
      await withRun(laid, 'one', async () => undefined);
      await sleep(20);
      await withRun(laid, 'two', async (second) => {
        const copy = await second.checkCopy({ 'x.txt': 'candidate\n' });
        assert.equal(copy.verified, false, 'readied by a look at its folders: nothing ran in it since the first run');
        assert.deepEqual(await copy.changedInputs(() => false), []);
        second.checkSetEnded();
      });
      const state = readStateFile(path.join(entry, 'copy.state')) as { known?: unknown };
      assert.deepEqual(state.known, { changed: [], extra: [] });
      // Between the runs: a file rewritten with its size and times kept, a file planted.
      const { atime, mtime } = lstatSync(path.join(entry, 'copy/src/y.js'));
      writeFileSync(path.join(entry, 'copy/src/y.js'), 'export {}!\n');
      utimesSync(path.join(entry, 'copy/src/y.js'), atime, mtime);
      writeFileSync(path.join(entry, 'copy/lib/a/planted.txt'), 'planted');
      await withRun(laid, 'three', async (third) => {
        assert.equal(third.report.copy, 'reused');
        const copy = await third.checkCopy({});
        // The planted file is gone (its folder's stamp changed); the rewritten file is not compared yet.
        assert.equal(copy.verified, false);
        assert.equal(existsSync(path.join(copy.dir, 'lib/a/planted.txt')), false);
        assert.equal(readFileSync(path.join(copy.dir, 'src/y.js'), 'utf8'), 'export {}!\n');
        // The walk after the copy's use finds it, whoever changed it and whenever.
        assert.deepEqual(await copy.changedInputs(() => false), ['src/y.js']);
        const again = await third.checkCopy({});
        assert.equal(again.verified, true);
        assert.deepEqual(treeDifferences(expectedCopy(laid.tree, {}), readTree(again.dir)), []);
        // A set stopped while a check of it may still run: the walk after the check before is not handed on.
        assert.deepEqual(await again.changedInputs(() => false), []);
      });
      assert.equal((readStateFile(path.join(entry, 'copy.state')) as { known?: unknown }).known, undefined);
      await withRun(laid, 'three-b', async (run) => {
        const copy = await run.checkCopy({});
        assert.equal(copy.verified, true, 'walked in full');
        await copy.changedInputs(() => false);
        run.checkSetEnded();
      });
      // A copy handed out and not walked after: its state keeps nothing known, and the next run walks it all.
      await withRun(laid, 'four', async (fourth) => {
        await fourth.checkCopy({});
      });
      assert.equal((readStateFile(path.join(entry, 'copy.state')) as { known?: unknown }).known, undefined);
      await withRun(laid, 'five', async (fifth) => assert.equal((await fifth.checkCopy({})).verified, true));
      // What the walk found, stored with a path that leaves the copy: the state is not trusted, the copy rebuilt.
      const stored = readStateFile(path.join(entry, 'copy.state')) as Record<string, unknown>;
      writeStateFile(path.join(entry, 'copy.state'), { ...stored, known: { changed: ['../outside'], extra: [] } });
      await withRun(laid, 'six', async (sixth) => assert.equal(sixth.report.copy, 'rebuilt'));
    }));

  it('state files an earlier version wrote (version 1: maps as pairs; version 2: all of it JSON) are not trusted: the copy is rebuilt, or all is taken afresh, and the snapshot equals one from scratch', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      const entry = entryDirOf(laid.cache, laid.ws);
      /** Rewrites a state file as version 1 wrote it: its maps as arrays of pairs, in a file of this format. */
      const asVersionOne = (name: string, maps: Record<string, (value: unknown) => Map<string, unknown>>): void => {
        const state = readStateFile(path.join(entry, name)) as Record<string, unknown>;
        for (const [field, read] of Object.entries(maps)) state[field] = [...read(state[field])];
        writeStateFile(path.join(entry, name), { ...state, version: 1 });
      };
      /** Rewrites a state file as version 2 wrote it: JSON text throughout, its numbers as JSON arrays. */
      const asVersionTwo = (name: string): void => {
        const state = readStateFile(path.join(entry, name));
        const json = JSON.stringify(state, (_key, value: unknown) => (value instanceof Float64Array ? [...value] : value));
        writeFileSync(path.join(entry, name), json.replace('"version":3', '"version":2'));
      };
      const verify = async (run: RunWorkspace): Promise<void> => {
        assert.equal(run.snapshot.hash, (await fromScratch(laid.ws, laid.scratch)).hash);
        const { dir } = await run.checkCopy({});
        assert.deepEqual(treeDifferences(expectedCopy(laid.tree, {}), readTree(dir)), []);
      };
      await (await startRun(laid, 'one')).dispose();
      // The copy's state only: the snapshot is used, the copy written again from it.
      asVersionOne('copy.state', { stamps: stampsFrom });
      await withRun(laid, 'two', async (run) => {
        assert.deepEqual(run.report, { hashed: 0, copy: 'rebuilt' });
        await verify(run);
      });
      asVersionTwo('copy.state');
      await withRun(laid, 'two-b', async (run) => {
        assert.deepEqual(run.report, { hashed: 0, copy: 'rebuilt' });
        await verify(run);
      });
      // The snapshot's record: nothing of the entry is used, every file is read again.
      asVersionOne('snapshot.state', { entries: manifestFrom, blobs: slotsFrom, live: stampsFrom });
      await withRun(laid, 'three', async (run) => {
        assert.deepEqual(run.report, {
          hashed: [...run.snapshot.manifest.values()].filter((e) => e.type === 'file').length,
          copy: 'fresh',
        });
        await verify(run);
      });
      // Written anew in this version's form, the entry serves the next run again.
      assert.equal((readStateFile(path.join(entry, 'snapshot.state')) as { version: number }).version, 3);
      await withRun(laid, 'four', async (run) => {
        assert.deepEqual(run.report, { hashed: 0, copy: 'reused', restored: 0 });
        await verify(run);
      });
      asVersionTwo('snapshot.state');
      await withRun(laid, 'five', async (run) => {
        assert.equal(run.report.copy, 'fresh');
        await verify(run);
      });
    }));

  it('a cached run kept for recovery resumes from its saved snapshot, which reads the cached pack, and the pack stays whole for the next run', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      const kept = await startRun(laid, 'kept');
      await kept.close();
      // A later run appends to the pack what changed meanwhile.
      writeFileSync(path.join(laid.ws, 'src/new.txt'), 'new bytes');
      await (await startRun(laid, 'later')).dispose();
      const resumed = await RunWorkspace.resume({
        runId: 'kept',
        workspace: laid.ws,
        scratchDir: laid.scratch,
        cacheDir: laid.cache,
        manifestHash: kept.snapshot.hash,
      });
      try {
        assert.equal(resumed.snapshot.hash, kept.snapshot.hash);
        const { dir } = await resumed.checkCopy({});
        assert.deepEqual(treeDifferences(expectedCopy(laid.tree, {}), readTree(dir)), []);
      } finally {
        await resumed.dispose();
      }
      await withRun(laid, 'next', async (next) => {
        assert.equal(next.report.copy, 'reused');
        // src/new.txt is read again only when it was written in the same clock tick as the last walk began.
        assert.ok(next.report.hashed <= 1, String(next.report.hashed));
        const { dir } = await next.checkCopy({});
        assert.equal(readFileSync(path.join(dir, 'src/new.txt'), 'utf8'), 'new bytes');
        // Read back from the pack (checked against its hash): the resumed run left the later run's blobs alone.
        assert.equal(next.snapshot.text('src/new.txt'), 'new bytes');
      });
    }));

  it('two runs at once on one workspace: the second takes a fresh copy of its own', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      const first = await startRun(laid, 'one');
      const second = await startRun(laid, 'two');
      try {
        assert.equal(second.report.cache, 'busy');
        assert.equal(second.report.copy, 'fresh');
        const [a, b] = [await first.checkCopy({ 'x.txt': 'a' }), await second.checkCopy({ 'x.txt': 'b' })];
        assert.notEqual(a.dir, b.dir);
        assert.equal(readFileSync(path.join(a.dir, 'x.txt'), 'utf8'), 'a');
        assert.equal(readFileSync(path.join(b.dir, 'x.txt'), 'utf8'), 'b');
        assert.equal(cacheEntries(laid.cache)[0]?.inUse, true);
      } finally {
        await second.dispose();
        await first.dispose();
      }
      const third = await startRun(laid, 'three');
      assert.equal(third.report.copy, 'reused');
      await third.dispose();
    }));

  it("refuses a cache folder others may write, or another user's, and plants nothing in the checks: a fresh copy instead", () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      // Another user got there first, in a shared temporary directory: a planted copy whose recorded state would match.
      await (await startRun(laid, 'one')).dispose();
      writeFileSync(path.join(entryDirOf(laid.cache, laid.ws), 'copy', 'x.txt'), 'planted\n');
      chmodSync(laid.cache, 0o777);
      await withRun(laid, 'two', async (open) => {
        assert.deepEqual([open.report.copy, open.report.cache], ['fresh', 'refused']);
        assert.equal(readFileSync(path.join((await open.checkCopy({})).dir, 'x.txt'), 'utf8'), 'top\n');
      });
      chmodSync(laid.cache, 0o700);
      if (process.getuid?.() === 0) {
        chownSync(entryDirOf(laid.cache, laid.ws), 4242, 4242);
        const foreign = await startRun(laid, 'three');
        assert.equal(foreign.report.cache, 'refused');
        await foreign.dispose();
      }
    }));

  it('pruning frees the space and the next run starts afresh, its copy exact', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      await (await startRun(laid, 'one')).dispose();
      const held = await startRun(laid, 'two');
      assert.deepEqual(await pruneCache({ cacheDir: laid.cache, all: true }), [], 'an entry in use is kept');
      await held.dispose();
      const removed = await pruneCache({ cacheDir: laid.cache, all: true });
      assert.equal(removed.length, 1);
      assert.deepEqual(readdirSync(laid.cache), []);
      await withRun(laid, 'three', async (next) => {
        assert.equal(next.report.copy, 'fresh');
        assert.equal(next.snapshot.hash, (await fromScratch(laid.ws, laid.scratch)).hash);
        const { dir } = await next.checkCopy({});
        assert.deepEqual(treeDifferences(expectedCopy(laid.tree, {}), readTree(dir)), []);
      });
      // Over the cap, the entry goes when its run lets go of it.
      assert.equal(cacheEntries(laid.cache).length, 1);
      await (await startRun(laid, 'four', { cacheMaxBytes: 1 })).dispose();
      assert.equal(cacheEntries(laid.cache).length, 0);
    }));
});

describe('takeSnapshot against a previous one', () => {
  it('trusts an unchanged stamp only when it was not taken while that snapshot was under way', async () => {
    const { dir: base, remove } = tempBase(`racy-${process.pid}`);
    try {
      const ws = path.join(base, 'ws');
      const runDir = path.join(base, 'run');
      mkdirSync(ws);
      mkdirSync(runDir);
      writeFileSync(path.join(ws, 'a.txt'), 'aaa');
      const pack = BlobPack.create(path.join(runDir, 'cache.pack'));
      const first = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir, pack });
      // Rewritten in the same clock tick as the first snapshot read it: its stamp would be the one recorded.
      writeFileSync(path.join(ws, 'a.txt'), 'bbb');
      const stamp = stampOf(lstatSync(path.join(ws, 'a.txt')));
      const previous = (startedAt: number): PreviousSnapshot => ({
        manifest: first.snapshot.manifest,
        live: new Map([...first.snapshot.live, ['a.txt', stamp]]),
        startedAt,
      });
      const racy = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir, pack, previous: previous(stamp.mtimeMs) });
      assert.equal(racy.hashed, 1);
      assert.deepEqual(racy.snapshot.manifest.get('a.txt'), { type: 'file', mode: 0o644, size: 3, hash: contentHash('bbb') });
      const settled = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir, pack, previous: previous(stamp.ctimeMs + 1000) });
      assert.equal(settled.hashed, 0);
      assert.deepEqual(settled.snapshot.manifest.get('a.txt'), first.snapshot.manifest.get('a.txt'));
      pack.close();
    } finally {
      remove();
    }
  });

  it('lists every folder when its clock is read on another file system than the workspace', async (t) => {
    const { dir: base, remove } = tempBase(`other-fs-${process.pid}`);
    const elsewhere = mkdtempSync(path.join(lstatSync('/dev/shm').dev === lstatSync(base).dev ? '/var/tmp' : '/dev/shm', 'redline-clock-'));
    try {
      if (lstatSync(elsewhere).dev === lstatSync(base).dev) return t.skip('no second file system here');
      const ws = path.join(base, 'ws');
      for (const dir of ['src/deep', 'docs']) mkdirSync(path.join(ws, dir), { recursive: true });
      writeFileSync(path.join(ws, 'src/deep/b.js'), 'b');
      await sleep(30);
      const pack = BlobPack.create(path.join(elsewhere, 'cache.pack'));
      const take = (previous?: PreviousSnapshot) =>
        takeSnapshot({
          workspace: ws,
          ignored: ignoreRule(),
          runDir: elsewhere,
          pack,
          ignoreKey: 'k',
          ...(previous === undefined ? {} : { previous }),
        });
      const first = await take();
      const again = await take({ manifest: first.snapshot.manifest, live: first.snapshot.live, startedAt: first.startedAt, ignore: 'k' });
      assert.equal(again.listed, 4, 'the workspace, src, src/deep and docs');
      assert.equal(again.snapshot.startedAt, undefined, 'the live comparison at the seal lists every folder too');
      pack.close();
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
      remove();
    }
  });

  it('lists only folders whose stamp changed, and every folder when the ignore rule is another one', async () => {
    const { dir: base, remove } = tempBase(`listed-${process.pid}`);
    try {
      const ws = path.join(base, 'ws');
      const runDir = path.join(base, 'run');
      for (const dir of ['src/deep', 'dist', 'docs']) mkdirSync(path.join(ws, dir), { recursive: true });
      mkdirSync(runDir);
      for (const file of ['src/a.js', 'src/deep/b.js', 'dist/app.js', 'docs/c.md']) writeFileSync(path.join(ws, file), file);
      const pack = BlobPack.create(path.join(runDir, 'cache.pack'));
      const rule = (globs: string[]) => ignoreRule(globs);
      const take = (previous: PreviousSnapshot | undefined, globs: string[], ignoreKey: string) =>
        takeSnapshot({ workspace: ws, ignored: rule(globs), runDir, pack, ignoreKey, ...(previous === undefined ? {} : { previous }) });
      const asPrevious = (taken: Awaited<ReturnType<typeof take>>, ignore: string): PreviousSnapshot => ({
        manifest: taken.snapshot.manifest,
        live: taken.snapshot.live,
        startedAt: taken.startedAt,
        ignore,
      });
      // Some clock ticks later: the folders' stamps are older than the walk's start, so trusted next time.
      await sleep(30);
      const first = await take(undefined, ['dist'], 'no-dist');
      assert.equal(first.listed, 4, 'the workspace, src, src/deep and docs');
      const same = await take(asPrevious(first, 'no-dist'), ['dist'], 'no-dist');
      assert.equal(same.listed, 0);
      assert.equal(same.snapshot.hash, first.snapshot.hash);
      writeFileSync(path.join(ws, 'src/deep/new.js'), 'new');
      rmSync(path.join(ws, 'docs/c.md'));
      const edited = await take(asPrevious(same, 'no-dist'), ['dist'], 'no-dist');
      assert.equal(edited.listed, 2, 'src/deep and docs');
      assert.deepEqual([...edited.snapshot.manifest.keys()].sort(), [
        'docs',
        'src',
        'src/a.js',
        'src/deep',
        'src/deep/b.js',
        'src/deep/new.js',
      ]);
      // Another rule: dist is no longer left out, and every folder is read again.
      const other = await take(asPrevious(edited, 'no-dist'), [], 'nothing');
      assert.equal(other.listed, 5);
      assert.ok(other.snapshot.manifest.has('dist/app.js'));
      const scratch = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir: path.join(base, 'run') });
      assert.equal(other.snapshot.hash, scratch.snapshot.hash);
      scratch.snapshot.pack.close();
      pack.close();
    } finally {
      remove();
    }
  });
});
