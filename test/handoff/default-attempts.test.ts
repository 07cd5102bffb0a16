import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import { planHandoff } from '../../src/handoff/handoff.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission, setsMaxAttempts } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { dataOf } from '../helpers/records.js';

const never: Check = {
  name: 'tests',
  stage: 'fast',
  tier: 'demand',
  required: true,
  run: async () => [finding(never, 'fail', ['test.failed:adds'], 'adds failed')],
};
const proposer = functionProposer(({ attempt }) => ({ value: `try ${attempt}` }));
const mission = (budgets?: { maxAttempts: number }) =>
  defineMission({ id: 'tuned', goal: 'g', stopPolicy: { guards: [] }, ...(budgets === undefined ? {} : { budgets }) });

describe("the tuner's limit under a review queue", () => {
  it('knows whether a mission set maxAttempts, without it being part of the mission', () => {
    assert.equal(setsMaxAttempts(mission()), false);
    assert.equal(setsMaxAttempts(mission({ maxAttempts: 5 })), true);
    assert.deepEqual(mission().budgets, mission({ maxAttempts: 5 }).budgets);
    assert.equal(JSON.stringify(mission()), JSON.stringify(mission({ maxAttempts: 5 })));
    assert.equal(setsMaxAttempts({ ...mission() }), true, 'a copy not made by defineMission keeps the default as a ceiling');
  });

  it("gives a mission that sets no maxAttempts the tuner's raised limit; one that sets it keeps it as a ceiling; no queue keeps the default", async () => {
    const dir = await tempWorkspace({});
    const file = path.join(dir, 'redline.db');
    const ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
    const queue = await SqliteReviewQueue.open({ database: file, tuner: { initial: 8 } });
    const handoff = { queue };
    assert.equal((await planHandoff(handoff, undefined)).maxAttempts, 8);
    assert.equal((await planHandoff(handoff, 5)).maxAttempts, 5);
    const unset = await runMission({ mission: mission(), proposer, checks: [never], ledger, handoff });
    assert.deepEqual([unset.attempts, unset.stopReason], [8, 'budget_attempts']);
    assert.deepEqual(dataOf(await ledger.records(unset.runId), 'run.started').handoff, {
      mode: 'normal',
      attemptLimit: 8,
      maxAttempts: 8,
      tags: [],
    });
    const capped = await runMission({ mission: mission({ maxAttempts: 5 }), proposer, checks: [never], ledger, handoff });
    assert.equal(capped.attempts, 5);
    const alone = await runMission({ mission: mission(), proposer, checks: [never], ledger });
    assert.equal(alone.attempts, 5);
    await queue.close();
    await ledger.close();
  });
});
