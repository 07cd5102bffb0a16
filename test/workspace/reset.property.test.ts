import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';
import { pathsOf, pick, treeSpec } from './arbitraries.js';
import { applyCheckAction, checkAction, type CheckAction } from './check-actions.js';
import { layWorkspace } from './laid-workspace.js';
import { alwaysIgnored, expectedCopy, file, readTree, tempBase, treeDifferences, withoutIgnored, writeTree, type Tree } from './tree.js';

// Each case lays a tree, snapshots it and resets the copy several times: 20 keep the suite quick, and every
// run draws new cases (fast-check seeds from the clock). More for a longer hunt:
// WORKSPACE_PROPERTY_RUNS=500 node --import tsx --test test/workspace/reset.property.test.ts
const NUM_RUNS = Number(process.env.WORKSPACE_PROPERTY_RUNS ?? 20);

type ProposalKind =
  | 'modify'
  | 'delete'
  | 'new-in-dir'
  | 'new-deep'
  | 'through-link'
  | 'name-dir'
  | 'name-link'
  | 'under-file'
  | 'delete-then-under'
  | 'ignored'
  | 'delete-missing';

interface Proposal {
  readonly kind: ProposalKind;
  readonly pick: number;
  readonly content: string;
}

const proposal: fc.Arbitrary<Proposal> = fc.record({
  kind: fc.constantFrom<ProposalKind>(
    'modify',
    'delete',
    'new-in-dir',
    'new-deep',
    'through-link',
    'name-dir',
    'name-link',
    'under-file',
    'delete-then-under',
    'ignored',
    'delete-missing',
  ),
  pick: fc.nat(),
  content: fc.oneof(fc.string({ unit: 'binary', maxLength: 24 }), fc.constant('')),
});

interface Step {
  readonly proposals: readonly Proposal[];
  /** The checks run on the copy: each one's actions, then `changedInputs`, as the loop asks after each check. */
  readonly checks: readonly (readonly CheckAction[])[];
  /** Whether the checks' `changedInputs` is asked at all (without it, the next reset walks the copy itself). */
  readonly asked: boolean;
}

const step: fc.Arbitrary<Step> = fc.record({
  proposals: fc.array(proposal, { maxLength: 5 }),
  checks: fc.array(fc.array(checkAction, { maxLength: 6 }), { maxLength: 2 }),
  asked: fc.boolean(),
});

/** The candidate entries a proposal stands for, on the snapshot `model`; none when the tree has nothing to aim at. */
function entriesOf(item: Proposal, model: Tree): [string, string | null][] {
  const files = pathsOf(model, 'file', alwaysIgnored);
  const dirs = pathsOf(model, 'dir', alwaysIgnored);
  const links = pathsOf(model, 'symlink', alwaysIgnored);
  const under = (dir: string, name: string): string => (dir === '' ? name : `${dir}/${name}`);
  switch (item.kind) {
    case 'modify':
      return files.length === 0 ? [] : [[pick(files, item.pick), item.content]];
    case 'delete':
      return files.length === 0 ? [] : [[pick(files, item.pick), null]];
    case 'new-in-dir':
      return [[under(pick(['', ...dirs], item.pick), `new-${item.pick % 3}.txt`), item.content]];
    case 'new-deep':
      return [[under(pick(['', ...dirs], item.pick), `fresh-${item.pick % 2}/deeper/n.txt`), item.content]];
    case 'through-link':
      return links.length === 0 ? [] : [[`${pick(links, item.pick)}/${item.pick % 2 === 0 ? 'x.txt' : 'inner.txt'}`, item.content]];
    case 'name-dir':
      return dirs.length === 0 ? [] : [[pick(dirs, item.pick), item.content]];
    case 'name-link':
      return links.length === 0 ? [] : [[pick(links, item.pick), item.pick % 2 === 0 ? item.content : null]];
    case 'under-file':
      return files.length === 0 ? [] : [[`${pick(files, item.pick)}/sub.txt`, item.content]];
    case 'delete-then-under': {
      if (files.length === 0) return [];
      const file = pick(files, item.pick);
      return [
        [file, null],
        [`${file}/sub.txt`, item.content],
      ];
    }
    case 'ignored':
      return [[pick(['.git/config', 'node_modules/pkg/.git/HEAD', '.redline/x.json', 'a/.git/y'], item.pick), item.content]];
    case 'delete-missing':
      return [[`nothing-here-${item.pick % 2}.txt`, null]];
  }
}

/** The candidate rule, restated from its specification (refused: ignored, a snapshot directory or symlink, through a symlink, under a kept or proposed file). */
function refusedPaths(candidate: Readonly<Record<string, string | null>>, model: Tree): string[] {
  const refused: string[] = [];
  for (const file of Object.keys(candidate)) {
    const entry = model.get(file);
    let refuse = alwaysIgnored(file) || entry?.type === 'dir' || entry?.type === 'symlink';
    const parts = file.split('/');
    for (let end = 1; end < parts.length && !refuse; end += 1) {
      const ancestor = parts.slice(0, end).join('/');
      const above = model.get(ancestor);
      refuse =
        above?.type === 'symlink' || (above?.type === 'file' && candidate[ancestor] !== null) || typeof candidate[ancestor] === 'string';
    }
    if (refuse) refused.push(file);
  }
  return refused;
}

function throughSnapshotSymlink(file: string, model: Tree): boolean {
  const parts = file.split('/');
  for (let end = 1; end < parts.length; end += 1) if (model.get(parts.slice(0, end).join('/'))?.type === 'symlink') return true;
  return false;
}

describe('RunWorkspace.checkCopy: the copy holds exactly snapshot + candidate, whatever a check did to it', () => {
  it('after random candidates and messy checks, a full walk of the copy is the expected tree', async (t) => {
    const started = performance.now();
    let resets = 0;
    let refusedSeen = 0;
    await fc.assert(
      fc.asyncProperty(treeSpec, fc.array(step, { minLength: 1, maxLength: 5 }), async (spec, steps) => {
        const laid = layWorkspace({ prefix: 'reset', spec });
        const model = withoutIgnored(laid.tree, alwaysIgnored);
        const run = await RunWorkspace.start({ runId: 'prop', workspace: laid.ws, scratchDir: laid.scratch });
        const log: string[] = [];
        try {
          let serial = 0;
          for (const { proposals, checks, asked } of [...steps, { proposals: [], checks: [], asked: false }]) {
            // The candidate is built the way the loop builds it: a proposal is kept only if every path is accepted.
            let candidate: Record<string, string | null> = {};
            for (const item of proposals) {
              const entries = entriesOf(item, model);
              if (entries.length === 0) continue;
              const next = { ...candidate, ...Object.fromEntries(entries) };
              const problems = run.candidateProblems(next);
              const refused = refusedPaths(next, model);
              assert.equal(
                problems.length,
                refused.length,
                `candidate ${JSON.stringify(next)}: refused by the rule ${JSON.stringify(refused)}, by candidateProblems ${JSON.stringify(problems)}`,
              );
              for (const [file] of entries)
                if (throughSnapshotSymlink(file, model))
                  assert.ok(problems.length > 0, `${file} leads through a snapshot symlink, yet was accepted`);
              if (problems.length === 0) candidate = next;
              else refusedSeen += 1;
            }
            const outsideBefore = readTree(laid.outside);
            const lookalikesBefore = readTree(laid.lookalikes);
            const { dir, changedInputs } = await run.checkCopy(candidate);
            resets += 1;
            log.push(`checkCopy(${JSON.stringify(candidate)})`);
            const differences = treeDifferences(expectedCopy(laid.tree, candidate), readTree(dir));
            assert.deepEqual(differences, [], `after ${log.join('; ')}`);
            assert.deepEqual(
              treeDifferences(outsideBefore, readTree(laid.outside)),
              [],
              'the reset changed the directory outside the workspace',
            );
            assert.deepEqual(
              treeDifferences(lookalikesBefore, readTree(laid.lookalikes)),
              [],
              'the reset changed a look-alike outside the copy',
            );
            // The check runs right away: no pause after the reset (the racy-timestamp window).
            // The next reset undoes what the checks did, also when it takes what the last `changedInputs` found instead of walking.
            for (const [index, actions] of checks.entries()) {
              for (const action of actions) log.push(applyCheckAction(dir, laid.lookalikes, action, (serial += 1)));
              if (asked) {
                await changedInputs(() => false);
                log.push(`changedInputs after check ${index + 1}`);
              }
            }
          }
          assert.deepEqual(treeDifferences(laid.tree, readTree(laid.ws)), [], 'the workspace changed');
        } finally {
          await run.dispose();
          laid.remove();
        }
      }),
      { numRuns: NUM_RUNS },
    );
    t.diagnostic(`${NUM_RUNS} cases, ${resets} resets, ${refusedSeen} refused proposals, ${Math.round(performance.now() - started)} ms`);
  });

  it('candidateProblems refuses a path through a snapshot symlink, or naming a snapshot directory, however it is spelled', async () => {
    const { dir: base, remove } = tempBase('spelling');
    try {
      const ws = path.join(base, 'ws');
      mkdirSync(path.join(ws, 'src'), { recursive: true });
      writeFileSync(path.join(ws, 'src/a.txt'), 'a');
      writeTree(ws, new Map([['link', { type: 'symlink', target: 'src' }]]));
      const run = await RunWorkspace.start({ runId: 'spelling', workspace: ws, scratchDir: path.join(base, 'scratch') });
      try {
        const spellings = [
          'link/x.txt',
          './link/x.txt',
          'src/../link/x.txt',
          'new/../link/x.txt',
          'link//x.txt',
          './link',
          'src/.',
          'new/../src',
        ];
        const accepted = spellings.filter((file) => run.candidateProblems({ [file]: 'x' }).length === 0);
        assert.deepEqual(accepted, [], `accepted: ${JSON.stringify(accepted)}`);
      } finally {
        await run.dispose();
      }
    } finally {
      remove();
    }
  });

  it('keeps the copy whole when a candidate spelled with ./ is followed by the same path in normal form', async () => {
    const { dir: base, remove } = tempBase('dot-spelling');
    try {
      const ws = path.join(base, 'ws');
      mkdirSync(ws);
      writeFileSync(path.join(ws, 'x.txt'), 'x');
      const run = await RunWorkspace.start({ runId: 'dot', workspace: ws, scratchDir: path.join(base, 'scratch') });
      try {
        const spelled = { './new/n.txt': 'a' };
        if (run.candidateProblems(spelled).length === 0) await run.checkCopy(spelled);
        const { dir } = await run.checkCopy({ 'new/n.txt': 'b' });
        const original: Tree = new Map([['x.txt', { type: 'file', mode: 0o644, content: Buffer.from('x') }]]);
        assert.deepEqual(treeDifferences(expectedCopy(original, { 'new/n.txt': 'b' }), readTree(dir)), []);
      } finally {
        await run.dispose();
      }
    } finally {
      remove();
    }
  });

  it('replaces a FIFO or a socket that a check left where a file should be (the reset neither blocks nor fails on it)', async () => {
    const { dir: base, remove } = tempBase('special');
    try {
      const ws = path.join(base, 'ws');
      mkdirSync(ws);
      writeFileSync(path.join(ws, 'fifo.txt'), 'was a file');
      writeFileSync(path.join(ws, 'socket.txt'), 'was a file');
      const original = readTree(ws);
      const run = await RunWorkspace.start({ runId: 'special', workspace: ws, scratchDir: path.join(base, 'scratch') });
      // Opening a FIFO to write waits for a reader: this one lets a blocked reset go on, so that the test fails instead of hanging.
      let reader: ChildProcess | undefined;
      try {
        const { dir } = await run.checkCopy({});
        rmSync(path.join(dir, 'fifo.txt'));
        execFileSync('mkfifo', [path.join(dir, 'fifo.txt')]);
        reader = spawn('cat', [path.join(dir, 'fifo.txt')], { stdio: 'ignore' });
        rmSync(path.join(dir, 'socket.txt'));
        const server = createServer();
        await new Promise<void>((resolve) => server.listen(path.join(dir, 'socket.txt'), resolve));
        server.unref();
        const error = await run.checkCopy({}).then(
          () => 'none',
          (thrown: unknown) => String(thrown),
        );
        const kind = (file: string): string => {
          const info = lstatSync(path.join(dir, file));
          return info.isFile() ? 'file' : info.isFIFO() ? 'FIFO' : info.isSocket() ? 'socket' : 'other';
        };
        const found = { error, 'fifo.txt': kind('fifo.txt'), 'socket.txt': kind('socket.txt') };
        const differences = treeDifferences(expectedCopy(original, {}), readTree(dir));
        // Closing the server unlinks whatever is at its path now (the restored file): read the tree first.
        server.close();
        assert.deepEqual(found, { error: 'none', 'fifo.txt': 'file', 'socket.txt': 'file' });
        assert.deepEqual(differences, []);
      } finally {
        reader?.kill();
        await run.dispose();
      }
    } finally {
      remove();
    }
  });

  it('keeps the modes of the snapshot that the umask would strip (0664 and 0600 files, 0775 and 0700 directories)', async (t) => {
    // As in a big workspace, where the rest of the snapshot takes longer than the racy window after these
    // files are copied: their first stamps are trusted at the first reset, not compared by content.
    const realNow = Date.now.bind(Date);
    t.mock.method(Date, 'now', () => realNow() + 1000);
    const previous = process.umask(0o022);
    const { dir: base, remove } = tempBase('modes');
    try {
      const ws = path.join(base, 'ws');
      mkdirSync(ws);
      const tree: Tree = new Map([
        ['shared', { type: 'dir', mode: 0o775 }],
        ['shared/g.txt', { type: 'file', mode: 0o664, content: Buffer.from('group writable') }],
        ['private', { type: 'dir', mode: 0o700 }],
        ['private/p.txt', { type: 'file', mode: 0o600, content: Buffer.from('private') }],
      ]);
      writeTree(ws, tree);
      const run = await RunWorkspace.start({ runId: 'modes', workspace: ws, scratchDir: path.join(base, 'scratch') });
      try {
        const { dir } = await run.checkCopy({});
        const agent = await run.agentCopy({});
        const modes = (root: string) =>
          Object.fromEntries(
            ['shared', 'shared/g.txt', 'private', 'private/p.txt'].map((file) => [
              file,
              (lstatSync(path.join(root, file)).mode & 0o7777).toString(8),
            ]),
          );
        const want = { shared: '775', 'shared/g.txt': '664', private: '700', 'private/p.txt': '600' };
        assert.deepEqual({ check: modes(dir), agent: modes(agent) }, { check: want, agent: want });
      } finally {
        await run.dispose();
      }
    } finally {
      process.umask(previous);
      remove();
    }
  });

  it('copies a workspace exactly whether its small files fit one batch (written in place) or take many (the writer thread)', async () => {
    const { dir: base, remove } = tempBase('batches');
    try {
      // 3 files fit one batch; 1,300 are three batches of 512 files. Repeated contents share blobs in the pack.
      for (const count of [3, 1300]) {
        const ws = path.join(base, `ws-${count}`);
        mkdirSync(ws);
        const tree: Tree = new Map([['d', { type: 'dir', mode: 0o755 }]]);
        for (let index = 0; index < count; index += 1) {
          tree.set(`d/f${index}.txt`, file(`content ${index % 97}\n`, index % 5 === 0 ? 0o600 : 0o644));
        }
        writeTree(ws, tree);
        const run = await RunWorkspace.start({ runId: `batches-${count}`, workspace: ws, scratchDir: path.join(base, `scratch-${count}`) });
        try {
          const { dir } = await run.checkCopy({});
          assert.deepEqual(treeDifferences(tree, withoutIgnored(readTree(dir), alwaysIgnored)), [], `${count} files`);
          const again = await run.checkCopy({ 'd/f1.txt': 'changed\n' });
          assert.equal(readFileSync(path.join(again.dir, 'd/f1.txt'), 'utf8'), 'changed\n');
          assert.equal(readFileSync(path.join(again.dir, 'd/f2.txt'), 'utf8'), 'content 2\n');
        } finally {
          await run.dispose();
        }
      }
    } finally {
      remove();
    }
  });

  it("undoes a check's chmod of the copy's root to the mode the copy started with", async () => {
    const { dir: base, remove } = tempBase('root-mode');
    try {
      const ws = path.join(base, 'ws');
      mkdirSync(ws);
      chmodSync(ws, 0o750);
      writeFileSync(path.join(ws, 'a.txt'), 'a');
      const run = await RunWorkspace.start({ runId: 'root', workspace: ws, scratchDir: path.join(base, 'scratch') });
      try {
        const { dir } = await run.checkCopy({});
        const first = lstatSync(dir).mode & 0o7777;
        chmodSync(dir, 0o700);
        await run.checkCopy({});
        assert.equal((lstatSync(dir).mode & 0o7777).toString(8), first.toString(8));
      } finally {
        await run.dispose();
      }
    } finally {
      remove();
    }
  });
});
