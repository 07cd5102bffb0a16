import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import type { Handoff } from '../../src/handoff/handoff.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { recoverRuns } from '../../src/loop/resume.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { dyingAfter } from '../helpers/ledgers.js';
import { dataOf } from '../helpers/records.js';

// End to end on one real SQLite file holding both the ledger and the review queue.
async function setup(capacity = 10) {
  const dir = await tempWorkspace({});
  const file = path.join(dir, 'redline.db');
  const ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
  const queue = await SqliteReviewQueue.open({ database: file, backpressure: { capacity } });
  return { ledger, queue, close: async () => (await queue.close(), await ledger.close()) };
}

const never: Check = {
  name: 'tests',
  stage: 'fast',
  tier: 'demand',
  required: true,
  run: async () => [finding(never, 'fail', ['test.failed:adds'], 'adds failed: expected 3, got 4')],
};
const judge = (score: number): Check => {
  const check = { name: 'judge', stage: 'fast' as const, tier: 'semantic' as const, required: false };
  return {
    ...check,
    run: async () => [
      finding(check, score >= 0.8 ? 'pass' : 'fail', score >= 0.8 ? [] : ['score.below_pass'], `score ${score}`, { score }),
    ],
  };
};

const failing = (id: string, maxAttempts = 10) =>
  defineMission({ id, goal: `make ${id} pass`, budgets: { maxAttempts }, stopPolicy: { guards: [] } });
const proposer = functionProposer(({ attempt }) => ({ value: `try ${attempt}` }));

describe('handoff to the review queue', () => {
  it('enqueues an unverified cutoff with its brief, and records what the queue did in the seal', async () => {
    const { ledger, queue, close } = await setup();
    const handoff: Handoff = { queue };
    const result = await runMission({ mission: failing('cutoff', 3), proposer, checks: [never], ledger, handoff });
    assert.deepEqual(
      [result.outcome, result.verification, result.stopReason, result.attempts],
      ['failed_with_evidence', 'unverified', 'budget_attempts', 3],
    );
    const [entry] = await queue.list();
    assert.equal(entry?.item.runId, result.runId);
    assert.deepEqual([entry?.item.task, entry?.item.attempts, entry?.item.verification], ['make cutoff pass', 3, 'unverified']);
    assert.match(entry?.item.cutoffReason ?? '', /^budget_attempts: 3 of 3 attempts used/);
    assert.match(entry?.item.lastError ?? '', /adds failed/);
    assert.deepEqual(entry?.item.finalOutput, { files: {}, value: 'try 3' });
    const seal = dataOf(await ledger.records(result.runId), 'run.sealed');
    assert.deepEqual(seal.handoff, { enqueued: true, itemId: entry?.item.id, tags: [], mode: 'normal' });
    await close();
  });

  it("lets verdicts move the feedback tuner, whose limit becomes the next run's attempt budget", async () => {
    const { ledger, queue, close } = await setup(50);
    const handoff: Handoff = { queue };
    for (let run = 0; run < 10; run += 1) await runMission({ mission: failing(`r${run}`, 10), proposer, checks: [never], ledger, handoff });
    assert.equal(await queue.currentLimit(), 5);
    let limitChanged: unknown;
    for (let verdict = 0; verdict < 10; verdict += 1) {
      const entry = await queue.claim('ana');
      const result = await queue.verdict(entry?.item.id as string, { reviewer: 'ana', decision: 'approve', label: 'unclear' });
      limitChanged ??= result.limitChanged;
    }
    assert.deepEqual([(limitChanged as { from: number; to: number }).from, (limitChanged as { to: number }).to], [5, 6]);
    const next = await runMission({ mission: failing('after-approvals', 10), proposer, checks: [never], ledger, handoff });
    assert.equal(next.attempts, 6);
    assert.deepEqual(dataOf(await ledger.records(next.runId), 'run.started').handoff, {
      mode: 'normal',
      attemptLimit: 6,
      maxAttempts: 6,
      tags: [],
    });
    // The verdicts and the change they caused are in the queue's hash-chained journal, with the window.
    const journal = (await queue.journal()).map((row) => JSON.parse(row.body) as { type: string; data: { verdictIds?: string[] } });
    assert.deepEqual(
      journal.map((entry) => entry.type),
      ['settings', ...Array(10).fill('verdict'), 'limit_change'],
    );
    assert.equal(journal.at(-1)?.data.verdictIds?.length, 10);
    assert.equal((await queue.verifyJournal()).ok, true);
    await close();
  });

  it('turns a new run into a single draft attempt in degraded mode', async () => {
    const { ledger, queue, close } = await setup(10);
    const handoff: Handoff = { queue };
    for (let run = 0; run < 9; run += 1)
      await runMission({ mission: failing(`fill${run}`, 1), proposer, checks: [never], ledger, handoff });
    assert.equal(await queue.mode(), 'degraded');
    const draft = await runMission({ mission: failing('while-degraded', 10), proposer, checks: [never], ledger, handoff });
    assert.deepEqual([draft.attempts, draft.stopReason], [1, 'budget_attempts']);
    const entry = (await queue.list()).find((item) => item.item.runId === draft.runId);
    assert.deepEqual(entry?.item.tags, ['draft']);
    await close();
  });

  it('hands a crashed run that started under the queue to it when recovery seals it, and keeps its budget when resumed', async () => {
    const { ledger, queue, close } = await setup(10);
    const handoff: Handoff = { queue };
    // Fill the queue to degraded: the next run starts with a one-attempt draft plan, then its process dies.
    for (let run = 0; run < 9; run += 1)
      await runMission({ mission: failing(`fill${run}`, 1), proposer, checks: [never], ledger, handoff });
    assert.equal(await queue.mode(), 'degraded');
    // The process dies before anything reaches the queue: its ledger and its queue stop answering.
    const deadQueue = new Proxy(queue, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (key === 'enqueue') return async () => Promise.reject(new Error('process killed'));
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await assert.rejects(
      runMission({ mission: failing('dies', 10), proposer, checks: [never], ledger: dyingAfter(ledger, 3), handoff: { queue: deadQueue } }),
      /process killed/,
    );
    assert.equal((await queue.list()).length, 9, 'nothing of the dead run reached the queue');
    const [crashed] = await ledger.runs({ unsealed: true });
    assert.deepEqual(dataOf(await ledger.records(crashed?.runId ?? ''), 'run.started').handoff, {
      mode: 'degraded',
      attemptLimit: 5,
      maxAttempts: 1,
      tags: ['draft'],
    });
    // Its proposer was a function: recovery cannot rebuild it and seals the run crashed, into the queue.
    const [recovery] = await recoverRuns({ ledger, handoff });
    assert.equal(recovery?.action, 'sealed_crashed');
    const seal = dataOf(await ledger.records(crashed?.runId ?? ''), 'run.sealed');
    assert.deepEqual(
      [seal.stopReason, seal.handoff?.enqueued, seal.handoff !== undefined && 'tags' in seal.handoff ? seal.handoff.tags : undefined],
      ['crashed', true, ['draft']],
    );
    const entry = (await queue.list()).find((item) => item.item.runId === crashed?.runId);
    assert.match(entry?.item.cutoffReason ?? '', /^crashed: /);

    // Another dies the same way; recovered with its proposer and no queue at hand, it resumes within the
    // one-attempt budget it started with, not the mission's ten.
    await assert.rejects(
      runMission({
        mission: failing('dies-again', 10),
        proposer,
        checks: [never],
        ledger: dyingAfter(ledger, 2),
        handoff: { queue: deadQueue },
      }),
      /process killed/,
    );
    const [resumed] = await recoverRuns({ ledger, proposer, checks: [never] });
    assert.deepEqual([resumed?.action, resumed?.result?.attempts, resumed?.result?.stopReason], ['resumed', 1, 'budget_attempts']);
    await close();
  });

  it('seals a run whose queue fails, saying so in the seal, and recovery goes on past such a queue', async () => {
    const { ledger, queue, close } = await setup(10);
    const broken = new Proxy(queue, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (key === 'enqueue' || key === 'recordRun') return async () => Promise.reject(new Error('connection refused'));
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const result = await runMission({ mission: failing('queue-down', 2), proposer, checks: [never], ledger, handoff: { queue: broken } });
      assert.deepEqual([result.outcome, result.verification], ['failed_with_evidence', 'unverified']);
      assert.deepEqual(dataOf(await ledger.records(result.runId), 'run.sealed').handoff, {
        enqueued: false,
        reason: 'queue error',
        error: 'connection refused',
        tags: [],
      });
      // Two runs die; recovery with the failing queue seals both all the same.
      for (const id of ['a', 'b'])
        await assert.rejects(
          runMission({ mission: failing(id, 5), proposer, checks: [never], ledger: dyingAfter(ledger, 3), handoff: { queue: broken } }),
          /process killed/,
        );
      const recoveries = await recoverRuns({ ledger, handoff: { queue: broken } });
      assert.deepEqual(
        recoveries.map((recovery) => recovery.action),
        ['sealed_crashed', 'sealed_crashed'],
      );
      assert.deepEqual(await ledger.runs({ unsealed: true }), []);
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(
        warnings.some((message) => /did not take the report of run .* connection refused/.test(message)),
        warnings.join('\n'),
      );
    } finally {
      process.off('warning', onWarning);
    }
    await close();
  });

  it('sends the configured share of sampled runs, and blocks by humanGate with a brief', async () => {
    const { ledger, queue, close } = await setup();
    const scoreMission = defineMission({ id: 'summary', goal: 'summarize', stopPolicy: { guards: [{ threshold: { bar: 0.8 } }] } });
    const always = await runMission({ mission: scoreMission, proposer, checks: [judge(0.9)], ledger, handoff: { queue, sampleRate: 1 } });
    const never_ = await runMission({ mission: scoreMission, proposer, checks: [judge(0.9)], ledger, handoff: { queue, sampleRate: 0 } });
    assert.deepEqual([always.verification, never_.verification], ['sampled', 'sampled']);
    const runs = (await queue.list()).map((entry) => [entry.item.runId, entry.item.tags]);
    assert.deepEqual(runs, [[always.runId, ['sample']]]);

    const gated = await runMission({
      mission: defineMission({ id: 'gated', goal: 'needs a person', stopPolicy: { guards: [{ humanGate: { n: 2 } }] } }),
      proposer,
      checks: [never],
      ledger,
      handoff: { queue },
    });
    assert.deepEqual([gated.outcome, gated.stopReason, gated.attempts], ['blocked', 'human_gate', 2]);
    const brief = (await queue.list()).find((entry) => entry.item.runId === gated.runId)?.item;
    assert.match(brief?.cutoffReason ?? '', /^human_gate/);
    await close();
  });
});
