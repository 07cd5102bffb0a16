import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { sweepRunDirectories } from '../../src/workspace/sweep.js';

const root = mkdtempSync(path.join(tmpdir(), 'redline-sweep-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** The pid of a process that has ended. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(result.stdout);
}

function runDir(name: string, { pid, host = hostname(), recorded = true }: { pid?: number; host?: string; recorded?: boolean }): void {
  mkdirSync(path.join(root, name, 'check'), { recursive: true });
  if (pid !== undefined) writeFileSync(path.join(root, name, 'owner.json'), JSON.stringify({ host, pid }));
  if (recorded) writeFileSync(path.join(root, name, 'recorded'), '');
}

describe('sweepRunDirectories', () => {
  it('removes what dead processes left for sealed or never-started runs, and keeps what may still be resumed', async () => {
    const dead = deadPid();
    runDir('renamed~removing-1-2', {});
    runDir('sealed-run', { pid: dead });
    runDir('unsealed-run', { pid: dead });
    runDir('other-ledger', { pid: dead });
    runDir('died-before-recorded', { pid: dead, recorded: false });
    runDir('live-run', { pid: process.ppid, recorded: false });
    runDir('other-host', { pid: dead, host: `not-${hostname()}`, recorded: false });
    runDir('no-owner', { recorded: false });
    const states: Record<string, 'sealed' | 'unsealed'> = { 'sealed-run': 'sealed', 'unsealed-run': 'unsealed' };
    const removed = await sweepRunDirectories({ root, runState: async (runId) => states[runId] ?? 'unknown' });
    assert.deepEqual(removed.sort(), ['died-before-recorded', 'sealed-run']);
    assert.deepEqual(readdirSync(root).sort(), ['live-run', 'no-owner', 'other-host', 'other-ledger', 'unsealed-run']);
  });

  it('does nothing when the root does not exist', async () => {
    assert.deepEqual(await sweepRunDirectories({ root: path.join(root, 'missing'), runState: async () => 'unknown' }), []);
    assert.equal(existsSync(path.join(root, 'missing')), false);
  });
});
