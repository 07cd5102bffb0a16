import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { commandProposer } from '../../src/proposers/command-proposer.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('the temp folder after a run', () => {
  it('holds nothing of the run: not its snapshot and copies, nor what its proposer and checks wrote to $TMPDIR', async () => {
    const dir = await tempWorkspace({ 'a.txt': 'old\n' });
    // A temp folder of this test's own, so that other test processes' files do not count.
    const temp = await mkdtemp(path.join(tmpdir(), 'redline-temp-folder-'));
    // Another test file of the same process may have set a scratch folder: this one is about the default.
    const previous = { TMPDIR: process.env.TMPDIR, REDLINE_SCRATCH: process.env.REDLINE_SCRATCH };
    process.env.TMPDIR = temp;
    delete process.env.REDLINE_SCRATCH;
    try {
      const leave = (what: string): string => `mkdir -p "$TMPDIR/${what}-dir" && echo x > "$TMPDIR/${what}-file"`;
      const result = await runMission({
        mission: defineMission({
          id: 'temp-folder',
          goal: 'g',
          workspace: dir,
          budgets: { maxAttempts: 2 },
          checks: [{ name: 'new', kind: 'command', tier: 'demand', command: `${leave('check')} && grep -q new a.txt` }],
        }),
        ledger: new MemoryLedger(),
        proposer: commandProposer({
          command: ['sh', '-c', `${leave('proposer')} && printf '{"files":{"a.txt":"new\\\\n"}}'`],
          cwd: dir,
        }),
      });
      assert.deepEqual([result.outcome, result.attempts], ['complete', 1]);
      // The runs' folder may stay (empty): it is shared by every run of the machine. The run's own folder
      // is renamed at the seal and deleted in the background: gone soon after.
      assert.deepEqual(await readdir(temp), ['redline-runs']);
      const runs = path.join(temp, 'redline-runs');
      for (let waited = 0; (await readdir(runs)).length > 0 && waited < 10_000; waited += 20) await sleep(20);
      assert.deepEqual(await readdir(runs), []);
    } finally {
      for (const [name, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await rm(temp, { recursive: true, force: true });
    }
  });
});
