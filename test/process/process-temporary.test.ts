import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { processTemporary, sweepProcessTemporaries } from '../../src/process/process-temporary.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'redline-test-sweep-tmp-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The pid of a process that has ended. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('sweepProcessTemporaries', () => {
  it("removes the temporary directories of this host's dead processes, and nothing else", async () => {
    const mine = processTemporary('tmp', tmp);
    const host = path.basename(mine).split('-')[3] as string;
    const sleeper = spawn('sleep', ['30']);
    try {
      const dead = deadPid();
      const deadTmp = path.join(tmp, `redline-tmp-${dead}-${host}-Ab12Cd`);
      const deadAgent = path.join(tmp, `redline-agent-${dead}-${host}-xY98zW`);
      const deadSandbox = path.join(tmp, `redline-sandbox-tmp-${dead}-${host}-q1w2e3`);
      // A dead program's leftovers, a directory a check made read-only inside included.
      mkdirSync(path.join(deadTmp, 'locked'), { recursive: true });
      writeFileSync(path.join(deadTmp, 'locked', 'f'), 'x');
      mkdirSync(deadAgent);
      mkdirSync(deadSandbox);
      const kept = [
        path.basename(mine),
        `redline-tmp-${sleeper.pid}-${host}-Live00`, // a live process's
        `redline-tmp-${dead}-${host === 'abcdef' ? '012345' : 'abcdef'}-Other0`, // another host's
        `redline-tmp-${dead}-Ab12Cd`, // not of this naming
        'redline-runs',
      ];
      for (const name of kept.slice(1)) mkdirSync(path.join(tmp, name), { recursive: true });

      const removed = await sweepProcessTemporaries(tmp);

      assert.deepEqual(removed.sort(), [deadAgent, deadSandbox, deadTmp].map((dir) => path.basename(dir)).sort());
      assert.deepEqual(readdirSync(tmp).sort(), [...kept].sort());
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('does nothing when the temp folder cannot be read', async () => {
    assert.deepEqual(await sweepProcessTemporaries(path.join(tmp, 'missing')), []);
  });
});
