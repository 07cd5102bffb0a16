import assert from 'node:assert/strict';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { SnapshotGoneError } from '../../src/errors/snapshot-gone-error.js';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';
import { dir, type Entry, expectedCopy, file, readTree, tempBase, type Tree, treeDifferences, writeTree } from './tree.js';

const ORIGINAL: Tree = new Map<string, Entry>([
  ['src', dir],
  ['src/a.txt', file('alpha\n')],
  ['src/b.txt', file('bravo\n')],
  ['bin', dir],
  ['bin/run.sh', file('#!/bin/sh\n', 0o755)],
  ['link', { type: 'symlink', target: 'src/a.txt' }],
  ['empty', dir],
  ['node_modules', dir],
  ['node_modules/pkg', dir],
  ['node_modules/pkg/index.js', file('module.exports = 1;\n')],
  ['.git', dir],
  ['.git/HEAD', file('ref: refs/heads/main\n')],
]);

const CANDIDATE = { 'src/a.txt': 'alpha, proposed\n', 'src/b.txt': null, 'added/new.txt': 'new\n' };

describe('RunWorkspace.resume: the baseline of a run that goes on after a crash', () => {
  let base: { dir: string; remove: () => void };
  let ws: string;
  let scratch: string;
  const open: RunWorkspace[] = [];
  const start = async (runId = 'resumed'): Promise<RunWorkspace> => {
    const run = await RunWorkspace.start({ runId, workspace: ws, scratchDir: scratch });
    open.push(run);
    return run;
  };
  const resume = async (manifestHash: string, scratchDir = scratch): Promise<RunWorkspace> => {
    const run = await RunWorkspace.resume({ runId: 'resumed', workspace: ws, scratchDir, manifestHash });
    open.push(run);
    return run;
  };
  /** What a crash leaves: the run directory as it was, the pack's descriptor gone with the process. */
  const crash = (run: RunWorkspace): void => run.snapshot.pack.close();

  beforeEach(() => {
    base = tempBase('resume');
    ws = path.join(base.dir, 'ws');
    scratch = path.join(base.dir, 'scratch');
    mkdirSync(ws);
    writeTree(ws, ORIGINAL);
  });

  afterEach(async () => {
    for (const run of open.splice(0)) await run.dispose();
    base.remove();
  });

  it('with its saved snapshot, writes the same copy again, even when the workspace changed since and the old copies were damaged', async () => {
    const first = await start();
    const { dir: check } = await first.checkCopy(CANDIDATE);
    const copied = readTree(check);
    assert.deepEqual(treeDifferences(expectedCopy(ORIGINAL, CANDIDATE), copied), []);
    writeFileSync(path.join(check, 'left-by-a-check.txt'), 'x');
    rmSync(path.join(check, 'node_modules'), { recursive: true });
    const agent = await first.agentCopy({});
    writeFileSync(path.join(agent, 'src/a.txt'), 'half-done agent edit\n');
    crash(first);
    writeFileSync(path.join(ws, 'src/a.txt'), 'edited by the user meanwhile\n');

    const resumed = await resume(first.snapshot.hash);
    assert.equal(resumed.snapshot.hash, first.snapshot.hash);
    assert.equal(resumed.snapshot.text('src/a.txt'), 'alpha\n');
    const again = await resumed.checkCopy(CANDIDATE);
    assert.equal(again.dir, check);
    assert.deepEqual(treeDifferences(copied, readTree(again.dir)), []);
    assert.deepEqual(treeDifferences(expectedCopy(ORIGINAL, {}), readTree(await resumed.agentCopy({}))), []);
    assert.deepEqual(await resumed.liveChanges(), ['src/a.txt']);
  });

  it('with the run directory deleted and the workspace unchanged, takes the snapshot again', async () => {
    const first = await start();
    const hash = first.snapshot.hash;
    crash(first);
    rmSync(first.runDir, { recursive: true });

    const resumed = await resume(hash);
    assert.equal(resumed.snapshot.hash, hash);
    const { dir } = await resumed.checkCopy(CANDIDATE);
    assert.deepEqual(treeDifferences(expectedCopy(ORIGINAL, CANDIDATE), readTree(dir)), []);
  });

  for (const lost of ['snapshot.state', 'blobs.pack']) {
    it(`with ${lost} deleted and the workspace unchanged, takes the snapshot again`, async () => {
      const first = await start();
      const hash = first.snapshot.hash;
      crash(first);
      rmSync(path.join(first.runDir, lost));

      const resumed = await resume(hash);
      assert.equal(resumed.snapshot.hash, hash);
      const { dir } = await resumed.checkCopy(CANDIDATE);
      assert.deepEqual(treeDifferences(expectedCopy(ORIGINAL, CANDIDATE), readTree(dir)), []);
    });
  }

  it('with the run directory deleted and the workspace changed, throws SnapshotGoneError naming both manifests, and leaves no run directory', async () => {
    const first = await start();
    const recorded = first.snapshot.hash;
    crash(first);
    rmSync(first.runDir, { recursive: true });
    writeFileSync(path.join(ws, 'src/b.txt'), 'bravo, edited\n');
    const probe = await RunWorkspace.start({ runId: 'probe', workspace: ws, scratchDir: scratch });
    const now = probe.snapshot.hash;
    await probe.dispose();
    assert.notEqual(now, recorded);

    await assert.rejects(
      RunWorkspace.resume({ runId: 'resumed', workspace: ws, scratchDir: scratch, manifestHash: recorded }),
      (error: unknown) => {
        assert.ok(error instanceof SnapshotGoneError, `got ${String(error)}`);
        assert.equal(error.name, 'SnapshotGoneError');
        assert.equal(error.code, 'workspace.snapshot_gone');
        assert.match(error.message, new RegExp(recorded.slice(0, 12)));
        assert.match(error.message, new RegExp(now.slice(0, 12)));
        assert.ok(error.message.includes(ws), error.message);
        return true;
      },
    );
    assert.equal(existsSync(first.runDir), false, 'the failed resume left its run directory behind');
  });

  it("gives the resumed copy's root the mode the first copy's root had", async () => {
    chmodSync(ws, 0o750);
    const first = await start();
    const { dir } = await first.checkCopy({});
    const before = lstatSync(dir).mode & 0o7777;
    crash(first);
    const resumed = await resume(first.snapshot.hash);
    const after = await resumed.checkCopy({});
    assert.equal((lstatSync(after.dir).mode & 0o7777).toString(8), before.toString(8));
  });

  for (const name of ['inner-scratch', '..scratch']) {
    it(`leaves a run directory under ${name} inside the workspace out of the live changes`, async () => {
      // The scratch directory is there (empty) when the run starts, so it is part of the snapshot.
      mkdirSync(path.join(ws, name));
      const first = await start();
      crash(first);
      // The same run, resumed with its scratch directory inside the workspace (its files moved there).
      const inside = path.join(ws, name);
      cpSync(first.runDir, path.join(inside, 'redline-runs', 'resumed'), { recursive: true, verbatimSymlinks: true });
      const resumed = await resume(first.snapshot.hash, inside);
      await resumed.checkCopy(CANDIDATE);
      assert.deepEqual(await resumed.liveChanges(), []);
    });
  }
});
