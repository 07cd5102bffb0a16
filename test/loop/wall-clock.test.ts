import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { commandProposer } from '../../src/proposers/command-proposer.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { tempWorkspace } from '../helpers/workspace.js';

const BUDGET_MS = 700;
/**
 * Far below the proposer's 1,000 s sleep and far above any scheduling delay of a loaded machine: tells
 * "ended at the budget" from "waited for the proposer" without timing the loop (bench/ measures that).
 */
const WAITED_MS = 30_000;

describe('wall-clock budget', () => {
  it('kills a proposer program that sleeps forever at the budget, not when it wakes', async () => {
    const dir = await tempWorkspace({ 'a.txt': '' });
    const started = performance.now();
    const result = await runMission({
      mission: defineMission({
        id: 'sleepy',
        goal: 'g',
        workspace: dir,
        budgets: { maxAttempts: 3, maxWallClock: BUDGET_MS },
        checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'false' }],
      }),
      proposer: commandProposer({ command: ['sleep', '1000'], cwd: dir }),
    });
    const overshoot = performance.now() - started - BUDGET_MS;
    assert.deepEqual([result.outcome, result.stopReason, result.verification], ['failed_with_evidence', 'budget_wall_clock', 'unverified']);
    assert.ok(overshoot < WAITED_MS, `overshoot ${overshoot.toFixed(0)} ms`);
    assert.ok(overshoot >= 0, 'the run must not end before its budget');
  });

  it('does not wait for an in-process proposer that never resolves', async () => {
    const started = performance.now();
    const result = await runMission({
      mission: defineMission({ id: 'never', goal: 'g', budgets: { maxAttempts: 3, maxWallClock: BUDGET_MS } }),
      proposer: functionProposer(() => new Promise(() => {})),
    });
    const overshoot = performance.now() - started - BUDGET_MS;
    assert.deepEqual([result.outcome, result.stopReason], ['failed_with_evidence', 'budget_wall_clock']);
    assert.ok(overshoot < WAITED_MS, `overshoot ${overshoot.toFixed(0)} ms`);
  });

  it('kills a check that outlives the budget', async () => {
    const dir = await tempWorkspace({ 'a.txt': '' });
    const started = performance.now();
    const result = await runMission({
      mission: defineMission({
        id: 'slow-check',
        goal: 'g',
        workspace: dir,
        budgets: { maxWallClock: BUDGET_MS },
        checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'sleep 100', timeout: '60s' }],
      }),
      proposer: functionProposer(() => ({ files: { 'a.txt': 'x' } })),
    });
    assert.equal(result.stopReason, 'budget_wall_clock');
    assert.ok(performance.now() - started - BUDGET_MS < WAITED_MS);
  });

  it('seals the run aborted when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await runMission({
      mission: defineMission({ id: 'abort', goal: 'g' }),
      proposer: functionProposer(() => new Promise(() => {})),
      signal: controller.signal,
    });
    assert.deepEqual([result.outcome, result.stopReason], ['failed_with_evidence', 'aborted']);
  });
});
