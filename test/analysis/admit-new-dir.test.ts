import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { admitCommand } from '../../src/cli/admit-command.js';
import type { Output } from '../../src/cli/run-command.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { layOut, recordRun, treeOf, type Layout, type RecordedRun } from './admit-runs.js';
import { tempDir } from '../helpers/workspace.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/redline.js');

/** A SQLite ledger holding one run, next to a directory `root` laid out as `layout`. */
async function setUp(run: RecordedRun, layout: Layout = {}): Promise<{ db: string; root: string; runId: string }> {
  const root = await tempDir('redline-admit-new-');
  const db = path.join(root, 'ledger.db');
  await layOut(root, layout);
  const ledger = await openLedger(db);
  const runId = await recordRun(ledger, run);
  await ledger.close();
  return { db, root, runId };
}

function recorder(): Output & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, print: (line) => void stdout.push(line), progress: (line) => void stderr.push(line) };
}

const RUN: RecordedRun = { files: { 'src/a.txt': 'new\n' }, baseline: {} };

describe('redline admit --to a directory that does not exist', () => {
  it('makes it with its parents and writes the candidate into it', async () => {
    const { db, root, runId } = await setUp(RUN);
    const to = path.join(root, 'out/deep/admitted');
    const output = recorder();
    assert.equal(await admitCommand(runId, { to, ledger: db }, output), 0, output.stderr.join('\n'));
    assert.deepEqual(output.stdout, [
      `admitted run ${runId} into ${to} (created): 1 written, 0 deleted, 0 unchanged`,
      '  wrote     src/a.txt',
    ]);
    assert.equal(await readFile(path.join(to, 'src/a.txt'), 'utf8'), 'new\n');
  });

  it('says what it created in --json', async () => {
    const { db, root, runId } = await setUp(RUN, { 'out/.keep': '' });
    const to = path.join(root, 'out/new');
    const output = recorder();
    assert.equal(await admitCommand(runId, { to, ledger: db, json: true }, output), 0);
    assert.deepEqual(JSON.parse(output.stdout[0] as string).created, [to]);
  });

  it('removes what it made when the admission is refused', async () => {
    const { db, root, runId } = await setUp({ ...RUN, outcome: 'failed_with_evidence' });
    const output = recorder();
    assert.equal(await admitCommand(runId, { to: path.join(root, 'out/admitted'), ledger: db }, output), 2);
    assert.match(output.stderr[0] ?? '', /did not end complete|not complete|failed_with_evidence/);
    assert.equal(existsSync(path.join(root, 'out')), false);
  });

  it('goes through a symlink to a directory in the path the user named', async () => {
    const { db, root, runId } = await setUp(RUN, { 'real/.keep': '', link: { symlink: 'real' } });
    assert.equal(await admitCommand(runId, { to: path.join(root, 'link/new'), ledger: db }, recorder()), 0);
    assert.equal(await readFile(path.join(root, 'real/new/src/a.txt'), 'utf8'), 'new\n');
  });

  it('refuses a dangling symlink or a file on the way, creating nothing through it', async () => {
    const { db, root, runId } = await setUp(RUN, { dangling: { symlink: '../elsewhere' }, 'file.txt': 'x\n' });
    const before = await treeOf(root);
    for (const [to, message] of [
      [
        path.join(root, 'dangling/new'),
        `redline: cannot admit into ${path.join(root, 'dangling/new')}: ${path.join(root, 'dangling')} is a symlink to a missing target; nothing is created through it`,
      ],
      [
        path.join(root, 'file.txt/new'),
        `redline: cannot admit into ${path.join(root, 'file.txt/new')}: ${path.join(root, 'file.txt')} is a file`,
      ],
    ] as const) {
      const output = recorder();
      assert.equal(await admitCommand(runId, { to, ledger: db }, output), 2);
      assert.deepEqual(output.stderr, [message]);
    }
    assert.deepEqual(await treeOf(root), before);
    assert.equal(existsSync(path.join(path.dirname(root), 'elsewhere')), false);
  });

  it('leaves --to alone with --patch: the directory to diff against must exist', async () => {
    const { db, root, runId } = await setUp(RUN);
    const output = recorder();
    assert.equal(await admitCommand(runId, { to: path.join(root, 'nope'), patch: path.join(root, 'p.diff'), ledger: db }, output), 2);
    assert.equal(existsSync(path.join(root, 'nope')), false);
  });

  it('through the built CLI: exit 0 and the files in the new directory', async () => {
    const { db, root, runId } = await setUp(RUN);
    const result = spawnSync(process.execPath, [BIN, 'admit', runId, '--to', 'fresh/dir', '--ledger', db], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.split('\n')[0], `admitted run ${runId} into fresh/dir (created): 1 written, 0 deleted, 0 unchanged`);
    assert.equal(await readFile(path.join(root, 'fresh/dir/src/a.txt'), 'utf8'), 'new\n');
  });
});
