import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkBaseline } from '../../src/loop/check-baseline.js';
import { defineMission } from '../../src/mission/mission.js';
import { runsRoot } from '../../src/workspace/run-workspace.js';
import { sweepRunDirectories } from '../../src/workspace/sweep.js';
import { tempDir, tempWorkspace } from '../helpers/workspace.js';

const scratchDir = await tempDir('redline-scratch-');
after(() => rm(scratchDir, { recursive: true, force: true }));

describe('checkBaseline', () => {
  it('holds its run directory: a sweep by another run in the same process (recovery at its start) leaves it alone', async () => {
    const dir = await tempWorkspace({ 'a.txt': 'ok\n', 'src/b.txt': 'b\n' });
    const signals = await tempDir();
    // The check waits until the test has swept, then reads its copy.
    const command = `touch ${JSON.stringify(path.join(signals, 'started'))}; while [ ! -e ${JSON.stringify(path.join(signals, 'go'))} ]; do sleep 0.05; done; grep -q ok a.txt`;
    const mission = defineMission({
      id: 'baseline-held',
      goal: 'g',
      workspace: dir,
      scope: ['**'],
      budgets: { maxAttempts: 1 },
      checks: [{ name: 'waits', kind: 'command', command, timeout: '60s' }],
      stopPolicy: { guards: [] },
    });
    const baseline = checkBaseline({ mission, scratchDir });
    while (!existsSync(path.join(signals, 'started'))) await sleep(20);
    const root = runsRoot(scratchDir);
    const [runDir] = readdirSync(root).filter((name) => name.startsWith('baseline-'));
    assert.ok(runDir !== undefined);
    const removed = await sweepRunDirectories({ root, runState: () => Promise.resolve('unknown') });
    writeFileSync(path.join(signals, 'go'), '');
    const { findings } = await baseline;
    assert.deepEqual(removed, []);
    assert.deepEqual(
      findings.filter((finding) => finding.check === 'waits').map((finding) => finding.status),
      ['pass'],
    );
    assert.doesNotMatch(JSON.stringify(findings), /inputs_changed/);
  });
});
