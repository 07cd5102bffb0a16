import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import { scoreCheck } from '../../src/checks/score-check.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { recordsOf } from '../../src/ledger/run-records.js';
import { restoreState } from '../../src/loop/resume.js';
import { runMission } from '../../src/loop/run-mission.js';
import { planHash } from '../../src/state/signature.js';
import { step, type StepContext } from '../../src/state/step.js';
import { initialState } from '../../src/state/working-state.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { dataOf } from '../helpers/records.js';

const valueIsOk: Check = {
  name: 'value',
  stage: 'fast',
  tier: 'demand',
  required: true,
  async run({ candidate }) {
    const check = { name: 'value', stage: 'fast' as const, tier: 'demand' as const };
    return candidate.value === 'ok'
      ? [finding(check, 'pass', [], 'ok')]
      : [finding(check, 'fail', [`value.is:${String(candidate.value)}`], 'not ok')];
  },
};

/** Freezes a value and everything in it: a step that mutated its input would throw. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) deepFreeze(item);
  return Object.freeze(value);
}

describe('the step function', () => {
  it('is pure: it leaves its input as it was and gives the same state for the same evidence', () => {
    const context: StepContext = { required: new Set(['value']), promotion: new Set(), plan: 'plan', lookback: 2 };
    const candidate = { files: {}, value: 'a', footprint: [], hash: 'h-a' };
    const evidence = deepFreeze({
      candidate,
      findings: [finding({ name: 'value', stage: 'fast', tier: 'demand' }, 'fail', ['value.is:a'], 'not ok')],
      usage: { inputTokens: 3, costUsd: 0.5 },
      elapsedMs: 40,
    });
    let state = deepFreeze(initialState());
    const first = step(state, evidence, context);
    assert.deepEqual(step(state, evidence, context), first);
    assert.deepEqual(first.summary.attempt, 1);
    for (let n = 0; n < 4; n += 1) state = deepFreeze(step(state, evidence, context).state);
    // Bounded: the window holds `lookback` summaries whatever the number of attempts; the counters add up (the
    // first attempt made progress: its check ran where none had).
    assert.deepEqual(
      state.recent.map((summary) => summary.attempt),
      [3, 4],
    );
    assert.deepEqual(
      [state.counters.attempts, state.counters.inputTokens, state.counters.costUsd, state.counters.sinceProgress],
      [4, 12, 2, 3],
    );
  });

  it('rebuilds a run’s working state from its records: the state each recorded decision saw, attempt by attempt', async () => {
    const ledger = new MemoryLedger();
    const scores = [0.5, 0.7, 0.7, 0.9, 0.95];
    const result = await runMission({
      mission: defineMission({
        id: 'm',
        goal: 'g',
        budgets: { maxAttempts: 8 },
        stopPolicy: { guards: [{ confirm: { k: 2, bar: 0.85 } }] },
      }),
      proposer: functionProposer(({ attempt }) => ({ value: String(scores[attempt - 1]), usage: { inputTokens: attempt } }), {
        reportsTokens: true,
      }),
      checks: [scoreCheck({ name: 'score', score: ({ candidate }) => Number(candidate.value) })],
      ledger,
    });
    assert.deepEqual([result.stopReason, result.attempts], ['confirm', 5]);
    const records = await ledger.records(result.runId);
    // The run's step context: its check plan (no workspace: no scope check) and the window it started with.
    const context: StepContext = {
      required: new Set(),
      promotion: new Set(),
      plan: planHash([{ name: 'score', stage: 'fast', tier: 'semantic', required: false }]),
      lookback: dataOf(records, 'run.started').lookback ?? 0,
    };
    const decisions = recordsOf(records, 'decision').filter(({ data }) => data.attempt > 0);
    for (const decision of decisions) {
      // The records up to the decision, less the decision: where a crash before it would have left the run.
      const { state, next } = restoreState(
        records.filter((record) => record.seq < decision.seq),
        context,
      );
      assert.equal(next, 'decide');
      assert.deepEqual(
        { counters: state.counters, frontier: state.frontier, recentAttempts: state.recent.map((summary) => summary.attempt) },
        decision.data.state,
        `before decision ${decision.seq}`,
      );
      const attempt = recordsOf(records, 'attempt').find(({ data }) => data.attempt === decision.data.attempt);
      assert.deepEqual(state.recent.at(-1), attempt?.data.summary);
    }
  });

  it('between attempts, starts no proposer once the run is stopped', async () => {
    const controller = new AbortController();
    let proposed = 0;
    const result = await runMission({
      mission: defineMission({ id: 'm', goal: 'g', budgets: { maxAttempts: 5 }, stopPolicy: { guards: [] } }),
      proposer: functionProposer(() => {
        proposed += 1;
        return { value: 'no' };
      }),
      checks: [valueIsOk],
      // The caller stops the run while its first decision is being recorded: after the judge, before the next attempt.
      onRecord: (record) => {
        if (record.type === 'decision' && record.data.attempt === 1) controller.abort();
      },
      signal: controller.signal,
    });
    // The attempt that never started is not counted.
    assert.deepEqual(
      [result.outcome, result.stopReason, result.detail, result.attempts],
      ['failed_with_evidence', 'aborted', 'the run was stopped by its caller after attempt 1', 1],
    );
    assert.equal(proposed, 1);
  });
});
