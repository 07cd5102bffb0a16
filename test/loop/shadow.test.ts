import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import type { Finding } from '../../src/core/finding.js';
import { scoreCheck } from '../../src/checks/score-check.js';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { recoverRuns } from '../../src/loop/resume.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { dyingAfter } from '../helpers/ledgers.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { dataOf } from '../helpers/records.js';

/** A demand check over the candidate's value; `calls` counts its runs. */
function valueIs(expected: unknown, { name = 'value', shadow = false } = {}): Check & { calls: unknown[] } {
  const check = { name, stage: 'fast' as const, tier: 'demand' as const, required: true };
  const calls: unknown[] = [];
  return {
    ...check,
    ...(shadow ? { shadow: true } : {}),
    calls,
    async run({ candidate }) {
      calls.push(candidate.value);
      return candidate.value === expected
        ? [finding(check, 'pass', [], 'matches')]
        : [finding(check, 'fail', [`value.is:${String(candidate.value)}`], 'differs')];
    },
  };
}

const sealOf = async (ledger: MemoryLedger, runId: string) => (await ledger.records(runId)).at(-1)?.data as Record<string, unknown>;

describe('shadow checks', () => {
  it('run once, at the seal, on the candidate the loop stopped on, and the seal records their verdict', async () => {
    const ledger = new MemoryLedger();
    const held = valueIs('right', { name: 'held-out', shadow: true });
    const result = await runMission({
      mission: defineMission({ id: 'm', goal: 'g', stopPolicy: { guards: [] } }),
      proposer: functionProposer(({ attempt }) => ({ value: ['a', 'ok'][attempt - 1] })),
      checks: [valueIs('ok'), held],
      ledger,
    });
    // The loop believed it: complete, verified. The held-out oracle says otherwise, and changed nothing.
    assert.deepEqual([result.outcome, result.verification, result.attempts], ['complete', 'verified', 2]);
    assert.deepEqual(held.calls, ['ok']);
    assert.equal(result.shadow?.verdict, 'fail');
    const seal = await sealOf(ledger, result.runId);
    assert.deepEqual(seal.shadow, result.shadow);
    assert.deepEqual(
      (seal.shadow as { findings: readonly Finding[] }).findings.map((item) => [item.check, item.status]),
      [['held-out', 'fail']],
    );
  });

  it('never reach the loop: the plan, signatures, acceptance and judge evidence are those of the run without them', async () => {
    const run = async (checks: Check[]) => {
      const ledger = new MemoryLedger();
      const result = await runMission({
        mission: defineMission({ id: 'm', goal: 'g', stopPolicy: { guards: [] } }),
        proposer: functionProposer(({ attempt }) => ({ value: ['a', 'b', 'ok'][attempt - 1] })),
        checks,
        ledger,
        _internal: { now: () => 0, generateId: () => 'run' },
      });
      const records = await ledger.records(result.runId);
      return { result, records: records.filter((record) => record.type !== 'run.sealed') };
    };
    const without = await run([valueIs('ok')]);
    const shadowed = await run([valueIs('ok'), valueIs('never', { name: 'held-out', shadow: true })]);
    // Every record before the seal — run.started's check plan, each attempt's findings and signature, each
    // decision's acceptance — is byte for byte the run's without the shadow check.
    assert.deepEqual(shadowed.records, without.records);
    assert.equal(shadowed.result.outcome, without.result.outcome);
    assert.equal(shadowed.result.shadow?.verdict, 'fail');
    assert.equal(without.result.shadow, undefined);
  });

  it('a crashing shadow check is an error verdict and leaves the outcome and verification alone', async () => {
    const crash: Check = {
      name: 'held-out',
      stage: 'fast',
      tier: 'demand',
      required: true,
      shadow: true,
      run: () => Promise.reject(new Error('boom')),
    };
    const result = await runMission({
      mission: defineMission({ id: 'm', goal: 'g', stopPolicy: { guards: [] } }),
      proposer: functionProposer(() => ({ value: 'ok' })),
      checks: [valueIs('ok'), crash],
    });
    assert.deepEqual([result.outcome, result.verification], ['complete', 'verified']);
    assert.equal(result.shadow?.verdict, 'error');
    assert.deepEqual(result.shadow?.findings[0]?.reasonCodes, ['check.crashed']);
  });

  it('a shadow demand check does not make a run verified, nor block a semantic-only run', async () => {
    const result = await runMission({
      mission: defineMission({ id: 'm', goal: 'g', stopPolicy: { guards: [{ threshold: { bar: 0.8 } }] } }),
      proposer: functionProposer(() => ({ value: 'ok' })),
      checks: [scoreCheck({ name: 'judge', score: () => 0.9 }), valueIs('ok', { name: 'held-out', shadow: true })],
    });
    assert.deepEqual([result.outcome, result.verification, result.shadow?.verdict], ['complete', 'sampled', 'pass']);
  });

  it('a run that made no candidate (complete_noop) gets its shadow verdict on the baseline, in the isolated copy', async () => {
    const dir = await tempWorkspace({ 'ok.txt': 'yes' });
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: defineMission({
        id: 'noop',
        goal: 'g',
        workspace: dir,
        checks: [
          { name: 'exists', kind: 'command', tier: 'demand', command: 'test -f ok.txt' },
          { name: 'held-out', kind: 'command', tier: 'demand', command: 'grep -q yes ok.txt && test ! -e ../ok.txt', shadow: true },
        ],
      }),
      proposer: functionProposer(() => ({})),
      ledger,
    });
    assert.deepEqual([result.outcome, result.attempts, result.shadow?.verdict], ['complete_noop', 0, 'pass']);
    const started = dataOf(await ledger.records(result.runId), 'run.started');
    assert.deepEqual(
      started.checks?.map((item) => item.name),
      ['scope', 'exists'],
    );
  });

  it("checks the final workspace candidate in the check copy, and a failing shadow on a workspace run keeps the loop's outcome", async () => {
    const dir = await tempWorkspace({ 'a.txt': 'old' });
    const result = await runMission({
      mission: defineMission({
        id: 'ws',
        goal: 'g',
        workspace: dir,
        stopPolicy: { guards: [] },
        checks: [
          { name: 'changed', kind: 'command', tier: 'demand', command: 'grep -q new a.txt' },
          { name: 'held-out', kind: 'command', tier: 'demand', command: 'grep -q newer a.txt', shadow: true },
          { name: 'held-out-2', kind: 'command', tier: 'demand', command: 'grep -q new a.txt', shadow: true },
        ],
      }),
      proposer: functionProposer(() => ({ files: { 'a.txt': 'new' } })),
    });
    assert.deepEqual([result.outcome, result.verification], ['complete', 'verified']);
    assert.equal(result.shadow?.verdict, 'fail');
    assert.deepEqual(
      result.shadow?.findings.map((item) => [item.check, item.status]),
      [
        ['held-out', 'fail'],
        ['held-out-2', 'pass'],
      ],
    );
  });

  it('a shadow check whose inputs changed while it ran counts for nothing, unless the mission declares them its outputs', async () => {
    const dir = await tempWorkspace({ 'a.txt': 'old', 'snap.txt': 'recorded' });
    try {
      const held = (outputs?: string[]) => ({
        name: 'held-out',
        kind: 'command',
        tier: 'demand',
        command: 'printf updated > snap.txt && grep -q new a.txt',
        shadow: true,
        ...(outputs === undefined ? {} : { outputs }),
      });
      const run = (outputs?: string[]) =>
        runMission({
          mission: defineMission({
            id: 'ws',
            goal: 'g',
            workspace: dir,
            stopPolicy: { guards: [] },
            checks: [{ name: 'changed', kind: 'command', tier: 'demand', command: 'grep -q new a.txt' }, held(outputs)],
          }),
          proposer: functionProposer(() => ({ files: { 'a.txt': 'new' } })),
        });
      const undeclared = await run();
      assert.deepEqual([undeclared.outcome, undeclared.verification, undeclared.shadow?.verdict], ['complete', 'verified', 'error']);
      assert.deepEqual(
        undeclared.shadow?.findings.map((item) => [item.check, item.status, item.reasonCodes.join()]),
        [['held-out', 'error', 'check.inputs_changed']],
      );
      assert.equal((await run(['snap.*'])).shadow?.verdict, 'pass');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a run stopped by its wall-clock budget still gets a shadow verdict', async () => {
    let clock = 0;
    const result = await runMission({
      mission: defineMission({ id: 'm', goal: 'g', budgets: { maxAttempts: 5, maxWallClock: 10_000 }, stopPolicy: { guards: [] } }),
      proposer: functionProposer(() => {
        clock += 20_000;
        return { value: 'no' };
      }),
      checks: [valueIs('ok'), valueIs('no', { name: 'held-out', shadow: true })],
      _internal: { now: () => clock },
    });
    assert.equal(result.outcome, 'failed_with_evidence');
    assert.equal(result.shadow?.verdict, 'pass');
  });

  it('a run resumed after a crash runs the same loop plan and seals with the shadow verdict', async () => {
    const dir = await tempWorkspace({ 'ws/answer.txt': 'zero\n' });
    await writeFile(
      path.join(dir, 'attempts.json'),
      JSON.stringify(['one', 'ok'].map((answer) => ({ files: { 'answer.txt': `${answer}\n` } }))),
    );
    const mission = defineMission(
      {
        id: 'resumable',
        goal: 'answer ok',
        workspace: 'ws',
        stopPolicy: { guards: [] },
        checks: [
          { name: 'answer', kind: 'expected-output', command: 'cat answer.txt', expected: 'ok' },
          { name: 'held-out', kind: 'expected-output', command: 'cat answer.txt', expected: 'ok', shadow: true },
        ],
        proposer: { kind: 'replay', file: 'attempts.json' },
      },
      { baseDir: dir },
    );
    // Crashed after run.started, baseline, decision and the first attempt.
    const ledger = await SqliteLedger.open({ database: path.join(dir, 'crash.db'), synchronous: 'off' });
    await assert.rejects(runMission({ mission, ledger: dyingAfter(ledger, 4) }), /process killed/);
    const [recovery] = await recoverRuns({ ledger });
    assert.equal(recovery?.action, 'resumed');
    const records = await ledger.records(recovery?.runId as string);
    const seal = records.at(-1)?.data as { outcome: string; shadow?: { verdict: string } };
    assert.deepEqual([seal.outcome, seal.shadow?.verdict], ['complete', 'pass']);
    await ledger.close();
  });
});
