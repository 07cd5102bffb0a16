import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import type { DeferredHandoff } from '../../src/handoff/handoff.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { recoverRuns } from '../../src/loop/resume.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { reviewQueueExists } from '../../src/review/open-review-queue.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { dyingAfter } from '../helpers/ledgers.js';
import { dataOf } from '../helpers/records.js';
import { tempWorkspace } from '../helpers/workspace.js';

// A deferred handoff on a real SQLite file that holds a ledger and, until a run needs one, no review queue.
const never: Check = {
  name: 'tests',
  stage: 'fast',
  tier: 'demand',
  required: true,
  run: async () => [finding(never, 'fail', ['test.failed:adds'], 'adds failed: expected 3, got 4')],
};
const always: Check = { ...never, run: async () => [finding(always, 'pass', [], 'adds passed')] };
const mission = (id: string, maxAttempts: number) =>
  defineMission({ id, goal: `make ${id} pass`, budgets: { maxAttempts }, stopPolicy: { guards: [] } });
const proposer = functionProposer(({ attempt }) => ({ value: `try ${attempt}` }));

/** A deferred handoff to the queue in `file` that counts how often it was opened; `close` closes what it opened. */
function onFirstNeed(file: string) {
  const opened: SqliteReviewQueue[] = [];
  const handoff: DeferredHandoff = {
    open: async () => {
      const queue = await SqliteReviewQueue.open({ database: file });
      opened.push(queue);
      return { queue };
    },
  };
  return { handoff, opened, close: async () => Promise.all(opened.map(async (queue) => queue.close())) };
}

describe('a deferred handoff (the review queue created on first need)', () => {
  it('creates no queue for a verified run; an unverified run opens it at its seal, under its own budget, and is enqueued', async () => {
    const file = path.join(await tempWorkspace({}), 'redline.db');
    const ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
    const deferred = onFirstNeed(file);
    try {
      const verified = await runMission({ mission: mission('passes', 8), proposer, checks: [always], ledger, handoff: deferred.handoff });
      assert.equal(verified.verification, 'verified');
      assert.deepEqual(dataOf(await ledger.records(verified.runId), 'run.sealed').handoff, { enqueued: false, reason: 'verified' });
      assert.deepEqual([deferred.opened.length, await reviewQueueExists(file)], [0, false]);

      // Eight attempts: no queue shaped the run (a queue's tuner would have cut it to five).
      const run = await runMission({ mission: mission('cutoff', 8), proposer, checks: [never], ledger, handoff: deferred.handoff });
      assert.deepEqual([run.verification, run.stopReason, run.attempts], ['unverified', 'budget_attempts', 8]);
      assert.equal(dataOf(await ledger.records(run.runId), 'run.started').handoff, undefined);
      assert.equal(deferred.opened.length, 1);
      const [entry] = await (deferred.opened[0] as SqliteReviewQueue).list();
      assert.equal(entry?.item.runId, run.runId);
      assert.deepEqual(dataOf(await ledger.records(run.runId), 'run.sealed').handoff, {
        enqueued: true,
        itemId: entry?.item.id,
        tags: [],
        mode: 'normal',
      });
      assert.equal(await reviewQueueExists(file), true);
    } finally {
      await deferred.close();
      await ledger.close();
    }
  });

  it("sends a crashed run of the default route to the queue recovery opens, though it started with no queue's plan", async () => {
    const file = path.join(await tempWorkspace({}), 'redline.db');
    const ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
    const deferred = onFirstNeed(file);
    try {
      await assert.rejects(
        runMission({ mission: mission('dies', 5), proposer, checks: [never], ledger: dyingAfter(ledger, 3), review: 'default' }),
        /process killed/,
      );
      // A run that took no route stays without a queue when it is recovered.
      await assert.rejects(
        runMission({ mission: mission('dies-unrouted', 5), proposer, checks: [never], ledger: dyingAfter(ledger, 3) }),
        /process killed/,
      );
      const recoveries = await recoverRuns({ ledger, handoff: deferred.handoff });
      assert.deepEqual(
        recoveries.map((recovery) => recovery.action),
        ['sealed_crashed', 'sealed_crashed'],
      );
      const [queue] = deferred.opened;
      const listed = (await queue?.list()) ?? [];
      const runs = await ledger.runs({});
      const routed = runs.find((row) => row.missionId === 'dies');
      const unrouted = runs.find((row) => row.missionId === 'dies-unrouted');
      assert.deepEqual(
        listed.map((item) => item.item.runId),
        [routed?.runId],
      );
      assert.equal(dataOf(await ledger.records(unrouted?.runId ?? ''), 'run.sealed').handoff, undefined);
    } finally {
      await deferred.close();
      await ledger.close();
    }
  });
});
