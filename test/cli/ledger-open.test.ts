import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { admitCommand } from '../../src/cli/admit-command.js';
import { exportCommand, showCommand, verifyCommand } from '../../src/cli/ledger-command.js';
import { replayCommand } from '../../src/cli/replay-command.js';
import { reviewJournalCommand, reviewListCommand, reviewShowCommand, reviewStatsCommand } from '../../src/cli/review-command.js';
import type { Output } from '../../src/cli/run-command.js';
import { tempWorkspace } from '../helpers/workspace.js';

// Issue 10 item 5: commands that only read a ledger never create one, and a ledger that cannot be opened is
// one clear line (exit 2), never a stack trace.
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/redline.js');
// Nothing listens on port 1; the password must never be printed.
const UNREACHABLE = 'postgres://postgres:s3cret@127.0.0.1:1/test';

function redline(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const silent: Output = { print: () => {}, progress: () => {} };

describe('opening the ledger', () => {
  it('refuses a missing SQLite ledger in every command that only reads one, naming the path, and creates nothing', async () => {
    const dir = await tempWorkspace({ 'policy.yaml': 'name: patient\nguards: []\n' });
    const missing = path.join(dir, 'no', 'such', 'x.db');
    const notFound = { name: 'LedgerNotFoundError', code: 'ledger.not_found', path: missing };
    await assert.rejects(verifyCommand({ ledger: missing }, silent), notFound);
    await assert.rejects(showCommand('run-1', { ledger: missing }, silent), notFound);
    await assert.rejects(exportCommand({ ledger: missing, format: 'jsonl' }, silent), notFound);
    await assert.rejects(replayCommand({ policy: path.join(dir, 'policy.yaml'), ledger: missing }, silent), notFound);
    await assert.rejects(reviewListCommand({ ledger: missing }, silent), notFound);
    await assert.rejects(reviewShowCommand('item-1', { ledger: missing }, silent), notFound);
    await assert.rejects(reviewStatsCommand({ ledger: missing }, silent), notFound);
    await assert.rejects(reviewJournalCommand({ ledger: missing }, silent), notFound);
    const progress: string[] = [];
    assert.equal(
      await admitCommand('run-1', { to: dir, ledger: missing }, { print: () => {}, progress: (line) => progress.push(line) }),
      2,
    );
    assert.match(progress.join('\n'), new RegExp(`^redline: no ledger at ${missing}: the file does not exist`));
    assert.equal(existsSync(path.join(dir, 'no')), false, 'no file or folder was created');
  });

  it('refuses a file that is not a ledger with one clear error', async () => {
    const dir = await tempWorkspace({ 'notes.txt': 'not a database\n'.repeat(100) });
    await assert.rejects(verifyCommand({ ledger: path.join(dir, 'notes.txt') }, silent), {
      name: 'LedgerError',
      code: 'ledger.unreadable',
      message: `${path.join(dir, 'notes.txt')} is not a ledger this redline can read: file is not a database`,
    });
  });

  it('names an unreachable PostgreSQL server in one line without the password', async () => {
    const unreachable = { name: 'LedgerUnreachableError', code: 'ledger.unreachable', server: '127.0.0.1:1/test' };
    await assert.rejects(verifyCommand({ ledger: UNREACHABLE }, silent), unreachable);
    await assert.rejects(reviewListCommand({ ledger: UNREACHABLE }, silent), unreachable);
  });

  it('exits 2 with one line on stderr and no stack trace (built CLI)', async () => {
    const dir = await tempWorkspace({
      'mission.json': JSON.stringify({ id: 'm', goal: 'g', checks: [{ name: 'ok', kind: 'command', command: 'true' }] }),
    });
    const missing = path.join(dir, 'no', 'such', 'x.db');
    const verify = redline(['ledger', 'verify', '--ledger', missing]);
    assert.deepEqual([verify.code, verify.stdout], [2, '']);
    assert.match(verify.stderr, new RegExp(`^redline: no ledger at ${missing}: [^\\n]*\\n$`));
    assert.equal(existsSync(path.join(dir, 'no')), false);

    for (const args of [
      ['ledger', 'verify'],
      ['run', path.join(dir, 'mission.json')],
    ]) {
      const refused = redline([...args, '--ledger', UNREACHABLE]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /^redline: cannot connect to PostgreSQL at 127\.0\.0\.1:1\/test: [^\n]*ECONNREFUSED[^\n]*\n$/);
      assert.doesNotMatch(refused.stderr, /s3cret/);
    }
  });
});
