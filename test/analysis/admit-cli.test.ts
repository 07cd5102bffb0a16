import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { admitCommand } from '../../src/cli/admit-command.js';
import type { Output } from '../../src/cli/run-command.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { layOut, recordRun, type RecordedRun } from './admit-runs.js';
import { tempDir } from '../helpers/workspace.js';
import { redline } from '../cli/redline.js';

/** A SQLite ledger file holding one run, and a directory laid out as `layout`. */
async function setUp(run: RecordedRun, layout: Record<string, string> = {}): Promise<{ db: string; dir: string; runId: string }> {
  const root = await tempDir('redline-admit-cli-');
  const db = path.join(root, 'ledger.db');
  const dir = path.join(root, 'dir');
  await layOut(dir, { ...layout, '.keep': '' });
  const ledger = await openLedger(db);
  const runId = await recordRun(ledger, run);
  await ledger.close();
  return { db, dir, runId };
}

/** An {@link Output} that keeps what the command prints. */
function recorder(): Output & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, print: (line) => void stdout.push(line), progress: (line) => void stderr.push(line) };
}

describe('redline admit', () => {
  it('prints what it wrote, deleted and left unchanged, or one JSON line with --json', async () => {
    const { db, dir, runId } = await setUp(
      { files: { 'a.txt': 'new\n', 'gone.txt': null, 'same.txt': 'same\n' }, baseline: { 'a.txt': 'old\n', 'gone.txt': 'x\n' } },
      { 'a.txt': 'old\n', 'gone.txt': 'x\n', 'same.txt': 'same\n' },
    );
    const output = recorder();
    assert.equal(await admitCommand(runId, { to: dir, ledger: db }, output), 0);
    assert.deepEqual(output.stdout, [
      `admitted run ${runId} into ${dir}: 1 written, 1 deleted, 1 unchanged`,
      '  wrote     a.txt',
      '  deleted   gone.txt',
      '  unchanged same.txt',
    ]);
    const json = recorder();
    assert.equal(await admitCommand(runId, { to: dir, ledger: db, json: true }, json), 0);
    assert.equal(json.stdout.length, 1);
    assert.deepEqual(JSON.parse(json.stdout[0] as string), {
      runId,
      mode: 'files',
      dir,
      written: [],
      deleted: [],
      unchanged: ['a.txt', 'gone.txt', 'same.txt'],
      forced: [],
      checked: true,
      overridden: [],
    });
  });

  it('refuses conflicts with exit 2 and one path per line, and admits over them with --force', async () => {
    const { db, dir, runId } = await setUp(
      { files: { 'a.txt': 'new\n', 'b.txt': 'new\n' }, baseline: { 'a.txt': 'old\n' } },
      { 'a.txt': 'edited\n', 'b.txt': 'created\n' },
    );
    const output = recorder();
    assert.equal(await admitCommand(runId, { to: dir, ledger: db }, output), 2);
    assert.deepEqual(output.stderr, [
      `redline: run ${runId}: 2 path(s) of ${dir} changed since the run started; nothing was written (--force admits over them)`,
      '  a.txt: changed since the run started',
      '  b.txt: created since the run started',
    ]);
    assert.equal(await readFile(path.join(dir, 'a.txt'), 'utf8'), 'edited\n');
    const json = recorder();
    assert.equal(await admitCommand(runId, { to: dir, ledger: db, json: true }, json), 2);
    assert.deepEqual((JSON.parse(json.stdout[0] as string) as { refused: string; problems: unknown[] }).refused, 'admit.conflict');
    const forced = recorder();
    assert.equal(await admitCommand(runId, { to: dir, ledger: db, force: true }, forced), 0);
    assert.deepEqual(forced.stdout.slice(1), [
      '  wrote     a.txt (forced: changed since the run started)',
      '  wrote     b.txt (forced: created since the run started)',
    ]);
  });

  it('spells out control characters in agent-supplied file names', async () => {
    const evil = 'evil\x1b[2J\r\u202etxt.exe';
    const { db, dir, runId } = await setUp(
      { files: { [evil]: 'x\n', 'ok\x07.txt': 'y\n' }, baseline: {} },
      { 'ok\x07.txt': 'there already\n' },
    );
    const refused = recorder();
    assert.equal(await admitCommand(runId, { to: dir, ledger: db }, refused), 2);
    assert.equal(refused.stderr[1], '  ok\\x07.txt: created since the run started');
    const output = recorder();
    assert.equal(await admitCommand(runId, { to: dir, ledger: db, force: true }, output), 0);
    assert.ok(output.stdout.includes('  wrote     evil\\x1b[2J\\r\\u{202e}txt.exe'), output.stdout.join('\n'));
    const json = recorder();
    await admitCommand(runId, { to: dir, ledger: db, json: true }, json);
    assert.ok(json.stdout[0]?.includes('evil\\u001b[2J\\r\\u202etxt.exe'), json.stdout[0]);
    const raw = (line: string): boolean =>
      [...line].some((char) => (char.codePointAt(0) as number) < 0x20 || char === '\x7f' || char === '\u202e');
    for (const line of [...refused.stderr, ...output.stdout, ...json.stdout]) assert.ok(!raw(line), JSON.stringify(line));
  });

  it('writes a patch against the mission workspace when --to is not given, and prints how to apply it', async () => {
    const { db, dir, runId } = await setUp({ files: { 'a.txt': 'new\n' }, baseline: { 'a.txt': 'old\n' } }, { 'a.txt': 'old\n' });
    const withWorkspace = await setUp({ files: { 'a.txt': 'new\n' }, baseline: { 'a.txt': 'old\n' }, workspaceDir: dir });
    const patch = path.join(path.dirname(db), 'change.diff');
    const output = recorder();
    assert.equal(await admitCommand(withWorkspace.runId, { patch, ledger: withWorkspace.db }, output), 0);
    assert.deepEqual(output.stdout, [
      `wrote the patch of run ${withWorkspace.runId} against ${dir} to ${patch}: 1 written, 0 deleted, 0 unchanged`,
      '  writes    a.txt',
      `apply it with: git -C ${dir} apply ${patch}`,
    ]);
    assert.match(await readFile(patch, 'utf8'), /^-old\n\+new\n/m);
    const noWorkspace = recorder();
    assert.equal(await admitCommand(runId, { patch, ledger: db }, noWorkspace), 2);
    assert.match(noWorkspace.stderr[0] as string, /its mission has no workspace; name the directory to admit against/);
  });

  it('prints a command that applies the patch from the top of the repository when the directory is a subdirectory of one', async () => {
    const { db, dir, runId } = await setUp({ files: { 'a.txt': 'new\n' }, baseline: { 'a.txt': 'old\n' } }, { 'ws dir/a.txt': 'old\n' });
    const git = (...args: string[]): void => assert.equal(spawnSync('git', args, { cwd: dir }).status, 0, args.join(' '));
    git('init', '--quiet');
    git('add', '--all');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'base');
    const patch = path.join(path.dirname(db), 'change.diff');
    const output = recorder();
    assert.equal(await admitCommand(runId, { to: path.join(dir, 'ws dir'), patch, ledger: db }, output), 0);
    const command = output.stdout.at(-1)?.replace(/^apply it with: /, '') as string;
    assert.equal(command, `git -C ${dir} apply --directory='ws dir' ${patch}`);
    const applied = spawnSync('sh', ['-c', command], { encoding: 'utf8' });
    assert.equal(applied.status, 0, applied.stderr);
    assert.equal(await readFile(path.join(dir, 'ws dir/a.txt'), 'utf8'), 'new\n');
  });

  it('takes exactly one of --to alone, --patch or --git-branch', async () => {
    const { db, runId } = await setUp({ files: {} });
    await assert.rejects(admitCommand(runId, { ledger: db }, recorder()), {
      name: 'TypeError',
      message: 'Expected --to DIR, --patch FILE or --git-branch NAME, got none',
    });
    await assert.rejects(admitCommand(runId, { patch: 'p', gitBranch: 'b', ledger: db }, recorder()), {
      name: 'TypeError',
      message: 'Expected one of --patch FILE or --git-branch NAME, got both',
    });
  });

  it('through main: exit 2 with the message and no stack trace, and accurate --help', async () => {
    const { db, dir, runId } = await setUp({ files: { 'a.txt': 'new\n' }, baseline: {} }, { 'a.txt': 'edited\n' });
    const conflict = await redline(['admit', runId, '--to', dir, '--ledger', db]);
    assert.equal(conflict.code, 2);
    assert.equal(
      conflict.stderr,
      `redline: run ${runId}: 1 path(s) of ${dir} changed since the run started; nothing was written (--force admits over them)\n  a.txt: created since the run started\n`,
    );
    const both = await redline(['admit', runId, '--patch', 'p', '--git-branch', 'b', '--ledger', db]);
    assert.deepEqual([both.code, both.stderr], [2, 'redline: Expected one of --patch FILE or --git-branch NAME, got both\n']);
    const help = await redline(['admit', '--help']);
    assert.equal(help.code, 0);
    for (const option of ['--to <dir>', '--patch <file>', '--git-branch <name>', '--force', '--json', '--ledger <location>'])
      assert.ok(help.stdout.includes(option), option);
  });
});
