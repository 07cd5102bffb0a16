import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { scoreCheck } from '../../src/checks/score-check.js';
import { AdaptivePriors } from '../../src/guards/adaptive-priors.js';
import type { GuardSpecInput } from '../../src/guards/spec.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { replayPolicies, replayPolicySchema } from '../../src/analysis/replay.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { runMission, type RunResult } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { wrapLedger } from '../helpers/ledgers.js';
import { tempDir } from '../helpers/workspace.js';

/** A judge's score for the candidate: the proposer proposes the score itself, as a number. */
const quality = scoreCheck({ name: 'quality', score: ({ candidate }) => Number(candidate.value) });

// Two runs that improve slowly and never reach 0.8 in 6 attempts, then a hopeless start that improves as slowly.
const SLOW = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55];
const SLOWER = [0.35, 0.38, 0.42, 0.45, 0.49, 0.52];
const HOPELESS = [0.3, 0.34, 0.38, 0.42, 0.46, 0.5];

/** One run of an `essay` mission whose attempts propose (and score) `trajectory`, under `guard`. */
function essay(ledger: Ledger, trajectory: readonly unknown[], guard: GuardSpecInput = { adaptive: { bar: 0.8 } }): Promise<RunResult> {
  return runMission({
    mission: defineMission({
      id: 'essay',
      goal: 'write the essay',
      taskType: 'essay',
      budgets: { maxAttempts: 6 },
      stopPolicy: { guards: [guard] },
    }),
    proposer: functionProposer(({ attempt }) => ({ value: trajectory[Math.min(attempt, trajectory.length) - 1] })),
    checks: [quality],
    ledger,
  });
}

/** One run on a fresh open of the SQLite ledger in `file`: what it learned must come from the storage. */
async function essayOn(file: string, trajectory: readonly number[]): Promise<RunResult> {
  const ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
  try {
    return await essay(ledger, trajectory);
  } finally {
    await ledger.close();
  }
}

const stop = (result: RunResult) => ({ outcome: result.outcome, stopReason: result.stopReason, attempts: result.attempts });

describe('adaptive in missions: priors learned through the ledger', () => {
  it('behaves as threshold until 3 finished runs, then gives up on a hopeless run that threshold keeps running', async () => {
    const dir = await tempDir('redline-adaptive-');
    try {
      const file = path.join(dir, 'ledger.db');
      const budget = { outcome: 'failed_with_evidence', stopReason: 'budget_attempts', attempts: 6 };
      assert.deepEqual(stop(await essayOn(file, SLOW)), budget);
      assert.deepEqual(stop(await essayOn(file, SLOWER)), budget);
      // Two finished runs are not enough: the hopeless run still runs to its budget, as threshold would.
      assert.deepEqual(stop(await essayOn(file, HOPELESS)), budget);

      const ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
      try {
        const expected = new AdaptivePriors();
        for (const trajectory of [SLOW, SLOWER, HOPELESS]) expected.record('essay', trajectory);
        assert.deepEqual(await ledger.priors('essay'), expected.toJSON().essay);
      } finally {
        await ledger.close();
      }

      const gaveUp = await essayOn(file, HOPELESS);
      assert.deepEqual(stop(gaveUp), { outcome: 'failed_with_evidence', stopReason: 'adaptive_giveup', attempts: 1 });
      assert.equal(gaveUp.guard, 'adaptive(0.8)');
      assert.match(gaveUp.detail, /learned from 3 essay runs/);
      assert.deepEqual(stop(await essay(new MemoryLedger(), HOPELESS, { threshold: { bar: 0.8 } })), budget, 'threshold keeps running');

      // A run that can still make it goes on, and completes at the bar.
      assert.deepEqual(stop(await essayOn(file, [0.7, 0.85])), { outcome: 'complete', stopReason: 'adaptive', attempts: 2 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('learns from every scored run, whatever its policy, up to the first attempt without a score', async () => {
    const ledger = new MemoryLedger();
    const expected = new AdaptivePriors();
    assert.deepEqual(stop(await essay(ledger, [0.2, 0.4, 0.5], { threshold: { bar: 0.45 } })), {
      outcome: 'complete',
      stopReason: 'threshold',
      attempts: 3,
    });
    expected.record('essay', [0.2, 0.4, 0.5]);
    assert.deepEqual(await ledger.priors('essay'), expected.toJSON().essay);
    // A proposal that is not a number leaves attempt 2 unscored (the score check reports an error): the run teaches [0.3].
    assert.equal((await essay(ledger, [0.3, 'a draft', 0.9], { threshold: { bar: 0.8 } })).attempts, 3);
    expected.record('essay', [0.3]);
    assert.deepEqual(await ledger.priors('essay'), expected.toJSON().essay);
    const unscored = new MemoryLedger();
    await runMission({
      mission: defineMission({ id: 'plain', goal: 'g', taskType: 'essay', budgets: { maxAttempts: 2 }, stopPolicy: { guards: [] } }),
      proposer: functionProposer(() => ({ value: 'x' })),
      ledger: unscored,
    });
    assert.equal(await unscored.priors('essay'), undefined, 'a run without scores teaches nothing');
  });

  it('rethrows a failure to learn as a LedgerError, and the run stays sealed with its outcome', async () => {
    const inner = new MemoryLedger();
    const broken = wrapLedger(inner, {
      learn: async () => {
        throw new Error('disk full');
      },
      close: () => inner.close(),
    });

    await assert.rejects(essay(broken, [0.5, 0.9]), { name: 'LedgerError', code: 'ledger.priors_failed', message: /essay.*disk full/ });
    const [run] = await inner.runs();
    assert.deepEqual([run?.sealed, run?.outcome, run?.stopReason], [true, 'complete', 'adaptive']);
    assert.equal((await inner.records(run?.runId as string)).filter((record) => record.type === 'run.sealed').length, 1);
  });

  it('is refused by what-if replay, which cannot rebuild the priors each run started with', async () => {
    const ledger = new MemoryLedger();
    await essay(ledger, [0.5, 0.9]);
    const policy = replayPolicySchema.parse({ name: 'learned', guards: [{ anyOf: [{ adaptive: { bar: 0.8 } }] }] });
    await assert.rejects(replayPolicies(ledger, [policy]), {
      name: 'TypeError',
      message: /without an `adaptive` guard .* got one in "learned"/,
    });
  });
});
