import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';

describe('bounded working state', () => {
  it('does not grow over 2,000 attempts', async () => {
    // Anything kept per attempt (a summary, a signature, a counter per reason) adds bytes every attempt:
    // 2,000 attempts put it far past the 32 bytes allowed below, as 10,000 did, in a fifth of the time.
    const ATTEMPTS = 2_000;
    const requestSizes: number[] = [];
    const check: Check = {
      name: 'never',
      stage: 'fast',
      tier: 'demand',
      required: true,
      // A different failing reason each attempt, from a fixed-width code, so no thrash guard fires and findings keep their size.
      run: async ({ attempt }) => [finding(check, 'fail', [`case.${String(attempt % 97).padStart(2, '0')}`], 'still failing')],
    };
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: defineMission({
        id: 'long',
        goal: 'g',
        budgets: { maxAttempts: ATTEMPTS },
        stopPolicy: { guards: [{ oscillation: { window: 3 } }, { repeatedOutput: { window: 3, repeats: 3 } }] },
      }),
      proposer: functionProposer((request) => {
        requestSizes.push(JSON.stringify(request.state).length);
        return { value: String(request.attempt % 89).padStart(2, '0') };
      }),
      checks: [check],
      ledger,
    });
    assert.deepEqual([result.stopReason, result.attempts], ['budget_attempts', ATTEMPTS]);
    const stateSizes = (await ledger.records(result.runId))
      .flatMap((record) => (record.type === 'decision' && record.data.attempt > 0 ? [record.data] : []))
      .map((data) => JSON.stringify(data.state).length);
    assert.equal(stateSizes.length, ATTEMPTS);
    // After the first attempts fill the windows, the recorded working state and the proposer's view stay within a few bytes (counters gain digits).
    const settle = 20;
    const maxState = Math.max(...stateSizes.slice(settle));
    const maxRequest = Math.max(...requestSizes.slice(settle));
    assert.ok(maxState - (stateSizes[settle] as number) <= 32, `state grew from ${stateSizes[settle]} to ${maxState} bytes`);
    assert.ok(maxRequest - (requestSizes[settle] as number) <= 32, `request grew from ${requestSizes[settle]} to ${maxRequest} bytes`);
  });
});
