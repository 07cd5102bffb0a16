import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';
import { modifySameSize } from './check-actions.js';
import {
  alwaysIgnored,
  dir,
  type Entry,
  expectedCopy,
  file,
  readTree,
  tempBase,
  type Tree,
  treeDifferences,
  withoutIgnored,
  writeTree,
} from './tree.js';

const ORIGINAL: Tree = new Map<string, Entry>([
  ['src', dir],
  ['src/a.txt', file('alpha\n')],
  ['src/b.txt', file('bravo\n')],
  ['src/deep', dir],
  ['src/deep/c.txt', file('charlie\n')],
  ['docs', dir],
  ['docs/readme.md', file('# readme\n')],
  ['lib', dir],
  ['lib/old', dir],
  ['lib/old/x.js', file('x\n')],
  ['lib/old/y.js', file('y\n')],
  ['node_modules', dir],
  ['node_modules/pkg', dir],
  ['node_modules/pkg/index.js', file('module.exports = 1;\n')],
  ['script.sh', file('#!/bin/sh\necho hi\n', 0o755)],
  ['link', { type: 'symlink', target: 'src/a.txt' }],
  ['.git', dir],
  ['.git/HEAD', file('ref: refs/heads/main\n')],
]);

/**
 * What a tree says about files: its files and symlinks, and the directories with one of them below. A
 * candidate holds files only, so a directory emptied or created empty is not part of what it can carry.
 */
function filesOf(tree: Tree): Tree {
  const kept = withoutIgnored(tree, alwaysIgnored);
  const holds = (name: string): boolean => [...kept].some(([other, entry]) => entry.type !== 'dir' && other.startsWith(`${name}/`));
  return new Map([...kept].filter(([name, entry]) => entry.type !== 'dir' || holds(name)));
}

describe('RunWorkspace.agentCopy + agentChanges: what an in-place agent did, as candidate files', () => {
  let base: { dir: string; remove: () => void };
  let run: RunWorkspace;

  beforeEach(async () => {
    base = tempBase('agent');
    const ws = path.join(base.dir, 'ws');
    mkdirSync(ws);
    writeTree(ws, ORIGINAL);
    run = await RunWorkspace.start({
      runId: 'agent',
      workspace: ws,
      ignore: ['dist/**', '**/*.log'],
      scratchDir: path.join(base.dir, 'scratch'),
    });
  });

  afterEach(async () => {
    await run.dispose();
    base.remove();
  });

  it('refuses to report before the agent copy is prepared', async () => {
    await assert.rejects(run.agentChanges(), { name: 'TypeError', message: /agent copy to be prepared first/ });
  });

  it('reports modified, created (in new directories) and deleted files and deleted directories, not ignored paths; applied as a candidate they reproduce the agent tree', async () => {
    const agent = await run.agentCopy({});
    assert.deepEqual(treeDifferences(expectedCopy(ORIGINAL, {}), readTree(agent)), []);
    assert.deepEqual(await run.agentChanges(), {}, 'an untouched copy has no changes');

    const at = (name: string): string => path.join(agent, name);
    writeFileSync(at('src/a.txt'), 'alpha, edited by the agent\n');
    modifySameSize(at('src/b.txt'), new Uint8Array([7]));
    writeFileSync(at('src/deep/c.txt'), 'charlie\n'); // rewritten with the same bytes: no change
    writeFileSync(at('src/new.txt'), 'new file\n');
    mkdirSync(at('new/dir'), { recursive: true });
    writeFileSync(at('new/dir/deep.txt'), 'deep and new\n');
    rmSync(at('docs/readme.md'));
    rmSync(at('lib/old'), { recursive: true });
    writeFileSync(at('node_modules/pkg/index.js'), 'module.exports = 2;\n');
    mkdirSync(at('.git/hooks'), { recursive: true });
    writeFileSync(at('.git/hooks/pre-commit'), 'exit 0\n');
    mkdirSync(at('.redline'));
    writeFileSync(at('.redline/state.json'), '{}');
    mkdirSync(at('src/.git'));
    writeFileSync(at('src/.git/config'), '[core]\n');
    mkdirSync(at('dist'));
    writeFileSync(at('dist/out.js'), 'built\n');
    writeFileSync(at('build.log'), 'log\n');
    writeFileSync(at('src/debug.log'), 'log\n');

    const changes = await run.agentChanges();
    const b = readTree(agent).get('src/b.txt');
    assert.ok(b?.type === 'file');
    assert.deepEqual(changes, {
      'src/a.txt': 'alpha, edited by the agent\n',
      'src/b.txt': b.content.toString('utf8'),
      'src/new.txt': 'new file\n',
      'new/dir/deep.txt': 'deep and new\n',
      'docs/readme.md': null,
      'lib/old/x.js': null,
      'lib/old/y.js': null,
      'node_modules/pkg/index.js': 'module.exports = 2;\n',
    });

    assert.deepEqual(run.candidateProblems(changes), []);
    const { dir: check } = await run.checkCopy(changes);
    const ignoredByMission = (name: string): boolean =>
      alwaysIgnored(name) || name === 'dist' || name.startsWith('dist/') || name.endsWith('.log');
    const agentTree = new Map([...readTree(agent)].filter(([name]) => !ignoredByMission(name)));
    assert.deepEqual(treeDifferences(filesOf(agentTree), filesOf(readTree(check))), []);
  });

  it('reports changes on top of the candidate the copy was prepared with, also a file replaced by a directory', async () => {
    const candidate = { 'src/a.txt': 'from the candidate\n', 'added/by/candidate.txt': 'c\n', 'docs/readme.md': null };
    const agent = await run.agentCopy(candidate);
    assert.deepEqual(treeDifferences(expectedCopy(ORIGINAL, candidate), readTree(agent)), []);

    const at = (name: string): string => path.join(agent, name);
    writeFileSync(at('added/by/candidate.txt'), 'c, edited\n');
    rmSync(at('src/a.txt'));
    writeFileSync(at('docs/readme.md'), 'recreated\n');
    rmSync(at('src/b.txt'));
    mkdirSync(at('src/b.txt'));
    writeFileSync(at('src/b.txt/part.md'), 'a directory where a file was\n');

    const changes = await run.agentChanges();
    assert.deepEqual(changes, {
      'added/by/candidate.txt': 'c, edited\n',
      'src/a.txt': null,
      'docs/readme.md': 'recreated\n',
      'src/b.txt': null,
      'src/b.txt/part.md': 'a directory where a file was\n',
    });

    const merged = { ...candidate, ...changes };
    assert.deepEqual(run.candidateProblems(merged), []);
    const { dir: check } = await run.checkCopy(merged);
    assert.deepEqual(treeDifferences(filesOf(readTree(agent)), filesOf(readTree(check))), []);

    // The next round starts from the merged candidate: the agent copy is reset to it exactly.
    const again = await run.agentCopy(merged);
    assert.deepEqual(treeDifferences(expectedCopy(ORIGINAL, merged), readTree(again)), []);
  });

  it('reports only what the agent did in a copy prepared with a candidate that puts a directory where a snapshot file was', async () => {
    const candidate = { 'src/b.txt': null, 'src/b.txt/part.md': 'a directory where a file was\n' };
    assert.deepEqual(run.candidateProblems(candidate), []);
    const agent = await run.agentCopy(candidate);
    assert.deepEqual(treeDifferences(expectedCopy(ORIGINAL, candidate), readTree(agent)), []);
    writeFileSync(path.join(agent, 'src/other.txt'), 'the only change\n');
    assert.deepEqual(await run.agentChanges(), { 'src/other.txt': 'the only change\n' });
  });

  it('reports a file the agent created in a directory that the candidate put where a snapshot file was', async (t) => {
    // As after a reset that wrote this directory long before it ended (a big candidate): no stamp is racy.
    const realNow = Date.now.bind(Date);
    t.mock.method(Date, 'now', () => realNow() + 1000);
    const candidate = { 'src/b.txt': null, 'src/b.txt/part.md': 'a directory where a file was\n' };
    const agent = await run.agentCopy(candidate);
    writeFileSync(path.join(agent, 'src/b.txt/added-by-agent.md'), 'the agent wrote this\n');
    const changes = await run.agentChanges();
    assert.equal(changes['src/b.txt/added-by-agent.md'], 'the agent wrote this\n', `reported: ${JSON.stringify(Object.keys(changes))}`);
  });

  it('throws a clear error for a symlink the agent created or changed', async () => {
    const agent = await run.agentCopy({});
    symlinkSync('a.txt', path.join(agent, 'src/alias'));
    await assert.rejects(run.agentChanges(), {
      name: 'TypeError',
      message: /src\/alias is a symlink to "a\.txt"; a candidate holds files only/,
    });

    await run.agentCopy({});
    rmSync(path.join(agent, 'link'));
    symlinkSync('src/b.txt', path.join(agent, 'link'));
    await assert.rejects(run.agentChanges(), { name: 'TypeError', message: /the symlink link was changed or removed/ });
  });

  it('throws a clear error for a file that is not UTF-8, created or modified', async () => {
    const agent = await run.agentCopy({});
    writeFileSync(path.join(agent, 'src/binary.bin'), Buffer.from([0xff, 0xfe, 0x00, 0x80]));
    await assert.rejects(run.agentChanges(), { name: 'TypeError', message: /src\/binary\.bin is not UTF-8 text/ });

    await run.agentCopy({});
    writeFileSync(path.join(agent, 'src/a.txt'), Buffer.from([0x61, 0xc3]));
    await assert.rejects(run.agentChanges(), { name: 'TypeError', message: /src\/a\.txt is not UTF-8 text/ });
  });
});
