import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { entryDirOf } from '../../src/workspace/workspace-cache.js';
import { treeSpec, type TreeSpec } from './arbitraries.js';
import { applyCheckAction, checkAction, modifySameSize } from './check-actions.js';
import { withLaidWorkspace, withRun, type LaidWorkspace, type LayOptions } from './laid-workspace.js';
import { alwaysIgnored, expectedCopy, readTree, treeDifferences, type Tree } from './tree.js';

// The in-place agent's copy outlives the run in the workspace's cache entry (docs/workspaces.md), beside
// the check copy. The agent is hostile: whatever it (or a process it left behind) did to its copy, the
// next run's reset must give it exactly snapshot + candidate, and nothing done through the agent's copy
// may reach the check copy or the cache's pack.
const NUM_RUNS = Number(process.env.WORKSPACE_PROPERTY_RUNS ?? 10);

const simple = (): TreeSpec => ({
  dirs: ['src', 'lib', 'lib/a'],
  files: [
    { dir: 0, name: 'x.txt', content: new TextEncoder().encode('top\n'), mode: 0o644 },
    { dir: 1, name: 'y.js', content: new TextEncoder().encode('export {};\n'), mode: 0o644 },
    { dir: 2, name: 'run.sh', content: new TextEncoder().encode('#!/bin/sh\n'), mode: 0o755 },
    { dir: 3, name: 'deep.txt', content: new TextEncoder().encode('deep\n'), mode: 0o644 },
  ],
  links: [{ dir: 1, name: 'l1', to: { kind: 'file', pick: 0 } }],
});

/** A hostile step may leave a folder without permissions: removal opens it first. */
const laying = (spec: TreeSpec): LayOptions => ({ prefix: `agent-cache-${process.pid}`, spec, closedFolders: true });

/** The workspace as a snapshot of it now holds it. */
const live = (laid: LaidWorkspace): Tree => new Map([...readTree(laid.ws)].filter(([file]) => !alwaysIgnored(file)));

describe('the in-place agent copy outlives the run in the cache entry', () => {
  it('the next run resets the copy the last one left instead of writing it, to exactly snapshot + candidate', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      const entry = entryDirOf(laid.cache, laid.ws);
      const dir = await withRun(laid, 'one', async (first) => {
        const dir = await first.agentCopy({ 'x.txt': 'first candidate\n' });
        assert.equal(dir, path.join(entry, 'agent'));
        writeFileSync(path.join(dir, 'src/y.js'), 'the agent edits\n');
        writeFileSync(path.join(dir, 'made.txt'), 'made by the agent\n');
        assert.deepEqual(await first.agentChanges(), { 'made.txt': 'made by the agent\n', 'src/y.js': 'the agent edits\n' });
        return dir;
      });
      const untouched = lstatSync(path.join(dir, 'lib/a/deep.txt')).ino;
      await withRun(laid, 'two', async (second) => {
        const candidate = { 'lib/run.sh': '#!/bin/sh\nexit 0\n' };
        assert.equal(await second.agentCopy(candidate), dir);
        assert.deepEqual(treeDifferences(expectedCopy(laid.tree, candidate), readTree(dir)), []);
        // Reset, not written afresh: an untouched file is the same file.
        assert.equal(lstatSync(path.join(dir, 'lib/a/deep.txt')).ino, untouched);
        assert.deepEqual(await second.agentChanges(), {});
      });
      // A run that does not use the agent copy hands it on; the workspace changes meanwhile.
      await withRun(laid, 'three', async () => undefined);
      writeFileSync(path.join(laid.ws, 'lib/a/deep.txt'), 'changed in the workspace\n');
      rmSync(path.join(laid.ws, 'x.txt'));
      await withRun(laid, 'four', async (fourth) => {
        assert.equal(await fourth.agentCopy({}), dir);
        assert.deepEqual(treeDifferences(live(laid), readTree(dir)), []);
        assert.deepEqual(await fourth.agentChanges(), {});
      });
      // Without its state (a run killed while it held the entry), the copy is written afresh.
      rmSync(path.join(entry, 'agent.state'));
      writeFileSync(path.join(dir, 'planted.txt'), 'planted');
      await withRun(laid, 'five', async (fifth) => {
        await fifth.agentCopy({});
        assert.deepEqual(treeDifferences(live(laid), readTree(dir)), []);
      });
    }));

  it('undoes what a hostile agent planted: restored times, hard links into the check copy and the pack, chmods, symlinks in place of folders, FIFOs', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      const entry = entryDirOf(laid.cache, laid.ws);
      const check = path.join(entry, 'copy');
      const agent = await withRun(laid, 'one', async (first) => {
        const agent = await first.agentCopy({});
        await first.agentChanges();
        return agent;
      });
      const pack = path.join(entry, readdirSync(entry).find((name) => name.endsWith('.pack')) as string);
      const packBytes = readFileSync(pack);
      // The agent's leftovers, after its changes were read: a file rewritten with its old size and times.
      modifySameSize(path.join(agent, 'x.txt'), new Uint8Array([7]), { exact: true });
      // Its file replaced by a hard link to the check copy's (a write through it would reach the check copy).
      rmSync(path.join(agent, 'src/y.js'));
      linkSync(path.join(check, 'src/y.js'), path.join(agent, 'src/y.js'));
      // A hard link to the cache's pack, as a new file.
      linkSync(pack, path.join(agent, 'pack-link'));
      // chmods of a file and a folder.
      chmodSync(path.join(agent, 'lib/run.sh'), 0o4777);
      chmodSync(path.join(agent, 'lib/a'), 0o777);
      // A folder moved aside and a symlink to it in its place (its files keep their inodes), and one
      // folder replaced by a symlink to the check copy's.
      renameSync(path.join(agent, 'lib/a'), path.join(agent, 'moved'));
      symlinkSync('../moved', path.join(agent, 'lib/a'));
      rmSync(path.join(agent, 'src'), { recursive: true });
      symlinkSync(path.join(check, 'src'), path.join(agent, 'src'));
      // FIFOs: one in place of a file, one new.
      rmSync(path.join(agent, 'lib/run.sh'));
      mkfifo(path.join(agent, 'lib/run.sh'));
      mkfifo(path.join(agent, 'fifo'));
      await withRun(laid, 'two', async (second) => {
        const candidate = { 'src/y.js': 'written by the reset\n', 'src/new/file.txt': 'new\n' };
        assert.equal(await second.agentCopy(candidate), agent);
        assert.deepEqual(treeDifferences(expectedCopy(laid.tree, candidate), readTree(agent)), []);
        for (const file of ['x.txt', 'src/y.js', 'lib/a/deep.txt']) assert.equal(lstatSync(path.join(agent, file)).nlink, 1, file);
        // Nothing reached the check copy or the pack through the agent's copy.
        assert.deepEqual(treeDifferences(expectedCopy(laid.tree, {}), readTree(check)), []);
        assert.deepEqual(readFileSync(pack), packBytes);
        assert.deepEqual(await second.agentChanges(), {});
        const { dir } = await second.checkCopy({ 'x.txt': 'checked\n' });
        assert.deepEqual(treeDifferences(expectedCopy(laid.tree, { 'x.txt': 'checked\n' }), readTree(dir)), []);
      });
    }));

  it('a copy with folders closed to the reset (a user but root cannot walk them) is written afresh', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      const agent = await withRun(laid, 'one', (first) => first.agentCopy({}));
      writeFileSync(path.join(agent, 'lib/a/hidden.txt'), 'hidden');
      chmodSync(path.join(agent, 'lib/a'), 0o000);
      chmodSync(agent, 0o300);
      await withRun(laid, 'two', async (second) => {
        await second.agentCopy({ 'x.txt': 'c\n' });
        assert.deepEqual(treeDifferences(expectedCopy(laid.tree, { 'x.txt': 'c\n' }), readTree(agent)), []);
      });
    }));

  it('a process the agent left behind: its writes through a kept descriptor show in the next changes, never in the check copy', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      const check = path.join(entryDirOf(laid.cache, laid.ws), 'copy');
      // The descriptor is opened while the first run holds the copy, and kept past its end.
      const { agent, fd } = await withRun(laid, 'one', async (first) => {
        const agent = await first.agentCopy({});
        return { agent, fd: openSync(path.join(agent, 'x.txt'), 'r+') };
      });
      try {
        await withRun(laid, 'two', async (second) => {
          await second.agentCopy({});
          writeSync(fd, 'TOP', 0);
          assert.deepEqual(await second.agentChanges(), { 'x.txt': 'TOP\n' });
          assert.equal(readFileSync(path.join(check, 'x.txt'), 'utf8'), 'top\n');
          // The next reset undoes it.
          await second.agentCopy({});
          assert.deepEqual(treeDifferences(expectedCopy(laid.tree, {}), readTree(agent)), []);
          // The descriptor now points at a file no longer in the copy.
          writeSync(fd, 'NOP', 0);
          assert.deepEqual(await second.agentChanges(), {});
        });
      } finally {
        closeSync(fd);
      }
    }));

  it('after random hostile changes to the agent copy and random edits of the workspace, the next run gives the agent exactly snapshot + candidate', async () => {
    await fc.assert(
      fc.asyncProperty(
        treeSpec,
        fc.array(checkAction, { minLength: 1, maxLength: 6 }),
        fc.array(checkAction, { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('x.txt', 'n/new.txt', 'a.txt'), fc.option(fc.string({ maxLength: 8 }), { nil: null }), {
          maxKeys: 2,
        }),
        (spec, hostile, edits, candidate) =>
          withLaidWorkspace(laying(spec), async (laid) => {
            const log: string[] = [];
            await withRun(laid, 'one', async (first) => {
              const agent = await first.agentCopy({ 'fresh/n.txt': 'n' });
              await first.agentChanges().catch(() => undefined);
              hostile.forEach((action, index) => log.push(`agent: ${applyCheckAction(agent, laid.lookalikes, action, index)}`));
            });
            edits.forEach((action, index) => log.push(`edit: ${applyCheckAction(laid.ws, laid.lookalikes, action, 100 + index)}`));
            await withRun(laid, 'two', async (second) => {
              // A candidate may only delete files the snapshot has.
              const files = Object.fromEntries(
                Object.entries(candidate).filter(
                  ([file, content]) => content !== null || second.snapshot.manifest.get(file)?.type === 'file',
                ),
              );
              if (second.candidateProblems(files).length > 0) return;
              const agent = await second.agentCopy(files);
              assert.deepEqual(treeDifferences(expectedCopy(live(laid), files), readTree(agent)), [], log.join('; '));
              assert.deepEqual(await second.agentChanges(), {}, log.join('; '));
            });
          }),
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('the agent copy brought ahead of its first use', () => {
  it('is written while the first check set runs, and what was done to it meanwhile is undone when the agent asks for it', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      await withRun(laid, 'ahead', async (run) => {
        const agentDir = path.join(entryDirOf(laid.cache, laid.ws), 'agent');
        run.agentCopyAhead({});
        const copy = await run.checkCopy({});
        // The comparison after the checks waits for every copy operation before it, the agent's included.
        assert.deepEqual(await copy.changedInputs(() => false), []);
        assert.equal(treeDifferences(readTree(agentDir), live(laid)).length, 0, 'ready before the agent asks for it');
        const marker = path.join(agentDir, 'src/y.js');
        const stamp = lstatSync(marker);
        // What anything did to it in the meantime is undone when it is handed out: entries created, a file
        // rewritten or removed.
        writeFileSync(path.join(agentDir, 'planted.txt'), 'planted');
        writeFileSync(path.join(agentDir, 'lib/a/planted.txt'), 'planted');
        writeFileSync(path.join(agentDir, 'x.txt'), 'TOP\n');
        rmSync(path.join(agentDir, 'lib/a/deep.txt'));
        assert.equal(await run.agentCopy({}), agentDir);
        assert.deepEqual(treeDifferences(readTree(agentDir), live(laid)), [], 'what was done meanwhile is undone');
        assert.equal(lstatSync(marker).ctimeMs, stamp.ctimeMs, 'not written again');
        writeFileSync(marker, 'the agent edits\n');
        assert.deepEqual(await run.agentChanges(), { 'src/y.js': 'the agent edits\n' });
        // Later requests reset it as always.
        run.agentCopyAhead({});
        const next = await run.agentCopy({ 'x.txt': 'candidate\n' });
        assert.deepEqual(treeDifferences(readTree(next), expectedCopy(live(laid), { 'x.txt': 'candidate\n' })), []);
      });
    }));

  it('holds exactly snapshot + candidate when the agent asks for other files', () =>
    withLaidWorkspace(laying(simple()), async (laid) => {
      await withRun(laid, 'other', async (run) => {
        run.agentCopyAhead({});
        const copy = await run.checkCopy({});
        await copy.changedInputs(() => false);
        const dir = await run.agentCopy({ 'x.txt': 'other\n', 'src/y.js': null });
        assert.deepEqual(treeDifferences(readTree(dir), expectedCopy(live(laid), { 'x.txt': 'other\n', 'src/y.js': null })), []);
        assert.deepEqual(await run.agentChanges(), {});
      });
    }));
});

function mkfifo(file: string): void {
  execFileSync('mkfifo', [file]);
}
