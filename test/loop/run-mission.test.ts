import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import { commandCheck } from '../../src/checks/command-check.js';
import { functionJudge } from '../../src/judge/judge.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { snapshot, tempWorkspace } from '../helpers/workspace.js';

/** A demand check over the candidate's value. */
function valueIs(expected: unknown, name = 'value'): Check {
  const check = { name, stage: 'fast' as const, tier: 'demand' as const, required: true };
  return {
    ...check,
    async run({ candidate }) {
      return candidate.value === expected
        ? [finding(check, 'pass', [], 'matches')]
        : [finding(check, 'fail', [`value.is:${String(candidate.value)}`], 'differs')];
    },
  };
}

describe('runMission', () => {
  it('completes verified when a demand check passes, and records the story in order', async () => {
    const ledger = new MemoryLedger();
    const values = ['a', 'b', 'ok'];
    const result = await runMission({
      mission: defineMission({ id: 'm', goal: 'say ok', stopPolicy: { guards: [] } }),
      proposer: functionProposer(({ attempt }) => ({ value: values[attempt - 1] })),
      checks: [valueIs('ok')],
      ledger,
    });
    assert.equal(result.outcome, 'complete');
    assert.equal(result.verification, 'verified');
    assert.equal(result.stopReason, 'demand_passed');
    assert.equal(result.attempts, 3);
    const types = (await ledger.records(result.runId)).map((record) => record.type);
    assert.deepEqual(types, [
      'run.started',
      'baseline',
      'decision',
      'attempt',
      'decision',
      'attempt',
      'decision',
      'attempt',
      'decision',
      'run.sealed',
    ]);
  });

  it('seals complete_noop when the baseline already passes, without calling the proposer', async () => {
    const dir = await tempWorkspace({ 'ok.txt': 'yes' });
    let calls = 0;
    const result = await runMission({
      mission: defineMission({
        id: 'noop',
        goal: 'g',
        workspace: dir,
        checks: [{ name: 'exists', kind: 'command', tier: 'demand', command: 'test -f ok.txt' }],
      }),
      proposer: functionProposer(() => {
        calls += 1;
        return {};
      }),
    });
    assert.deepEqual(
      [result.outcome, result.verification, result.stopReason, result.attempts, calls],
      ['complete_noop', 'verified', 'baseline_passed', 0, 0],
    );
  });

  it('checks candidates in an isolated copy and never modifies the workspace', async () => {
    const dir = await tempWorkspace({ 'src/a.txt': 'old', 'keep.txt': 'keep' });
    const before = await snapshot(dir);
    const result = await runMission({
      mission: defineMission({
        id: 'iso',
        goal: 'g',
        workspace: dir,
        scope: ['src/**'],
        checks: [
          { name: 'new', kind: 'command', tier: 'demand', command: 'grep -q new src/a.txt && test ! -e keep.txt || grep -q new src/a.txt' },
        ],
      }),
      proposer: functionProposer(() => ({ files: { 'src/a.txt': 'new' } })),
    });
    assert.equal(result.outcome, 'complete');
    assert.deepEqual(result.candidate.footprint, ['src/a.txt']);
    assert.deepEqual(await snapshot(dir), before);
  });

  it('blocks a candidate that leaves the scope', async () => {
    const dir = await tempWorkspace({ 'src/a.js': '', 'test/a.test.js': '' });
    const result = await runMission({
      mission: defineMission({
        id: 'scope',
        goal: 'g',
        workspace: dir,
        scope: ['src/**'],
        checks: [{ name: 'c', kind: 'command', tier: 'demand', command: 'false' }],
      }),
      proposer: functionProposer(() => ({ files: { 'test/a.test.js': 'cheat' } })),
    });
    assert.deepEqual([result.outcome, result.stopReason, result.verification], ['blocked', 'scope_violation', 'unverified']);
    assert.match(result.brief?.cutoffReason ?? '', /test\/a\.test\.js is outside the mission scope/);
  });

  it('stops at the attempt budget with failed_with_evidence and a brief', async () => {
    const result = await runMission({
      mission: defineMission({ id: 'budget', goal: 'g', budgets: { maxAttempts: 2 }, stopPolicy: { guards: [] } }),
      proposer: functionProposer(({ attempt }) => ({ value: attempt })),
      checks: [valueIs('never')],
    });
    assert.deepEqual(
      [result.outcome, result.stopReason, result.attempts, result.verification],
      ['failed_with_evidence', 'budget_attempts', 2, 'unverified'],
    );
    assert.equal(result.brief?.attempts, 2);
  });

  it('detects an A→B→A oscillation by state signature', async () => {
    const values = ['A', 'B', 'A', 'B'];
    const result = await runMission({
      mission: defineMission({ id: 'osc', goal: 'g', budgets: { maxAttempts: 10 }, stopPolicy: { guards: [{ oscillation: {} }] } }),
      proposer: functionProposer(({ attempt }) => ({ value: values[attempt - 1] })),
      checks: [valueIs('C')],
    });
    assert.deepEqual([result.outcome, result.stopReason, result.attempts], ['failed_with_evidence', 'oscillation', 3]);
  });

  it('accepts on a score rule with verification sampled when no demand red line exists', async () => {
    const scores = [0.5, 0.7, 0.85];
    const check = { name: 'judge', stage: 'fast' as const, tier: 'semantic' as const, required: false };
    const result = await runMission({
      mission: defineMission({ id: 'score', goal: 'g', stopPolicy: { guards: [{ threshold: { bar: 0.8 } }] } }),
      proposer: functionProposer(({ attempt }) => ({ value: `v${attempt}` })),
      checks: [
        {
          ...check,
          run: async ({ attempt }) => [finding(check, 'fail', ['score.below_pass'], '', { score: scores[attempt - 1] as number })],
        },
      ],
    });
    assert.deepEqual([result.outcome, result.verification, result.stopReason, result.attempts], ['complete', 'sampled', 'threshold', 3]);
  });

  it('blocks when every check passes but a required approval is missing, and completes when it is given', async () => {
    const mission = defineMission({ id: 'approval', goal: 'g', approvals: ['security'], stopPolicy: { guards: [] } });
    const proposer = functionProposer(() => ({ value: 'ok' }));
    const blocked = await runMission({ mission, proposer, checks: [valueIs('ok')] });
    assert.deepEqual([blocked.outcome, blocked.stopReason], ['blocked', 'approval_missing']);
    const approved = await runMission({ mission, proposer, checks: [valueIs('ok')], approvals: ['security'] });
    assert.equal(approved.outcome, 'complete');
  });

  it('lets a breaker override a judge that wants to retry past it', async () => {
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: defineMission({ id: 'override', goal: 'g', budgets: { maxAttempts: 2 }, stopPolicy: { guards: [] } }),
      proposer: functionProposer(({ attempt }) => ({ value: attempt })),
      checks: [valueIs('never')],
      judge: functionJudge(() => ({ transition: 'retry', reason: 'keep_going' })),
      ledger,
    });
    assert.deepEqual([result.outcome, result.stopReason, result.attempts], ['failed_with_evidence', 'budget_attempts', 2]);
    const decisions = (await ledger.records(result.runId)).filter((record) => record.type === 'decision');
    assert.equal(decisions.at(-1)?.data.overridden, true);
  });
});

describe('runMission checks', () => {
  it('skips promotion checks with a deterministic reason when a fast check fails', async () => {
    const dir = await tempWorkspace({ 'a.txt': '' });
    const result = await runMission({
      mission: defineMission({
        id: 'stages',
        goal: 'g',
        workspace: dir,
        budgets: { maxAttempts: 1 },
        checks: [
          { name: 'fast', kind: 'command', command: 'false' },
          { name: 'slow', kind: 'command', tier: 'demand', stage: 'promotion', command: 'true' },
        ],
      }),
      proposer: functionProposer(() => ({ files: { 'a.txt': 'x' } })),
    });
    const slow = result.findings.find((item) => item.check === 'slow');
    assert.equal(slow?.status, 'skipped');
    assert.equal(slow?.skipReason, 'fast_stage_failed: fast');
    assert.equal(result.outcome, 'failed_with_evidence');
  });

  it('turns a hanging check into an error finding at its timeout and still seals the run', async () => {
    const dir = await tempWorkspace({ 'a.txt': '' });
    const result = await runMission({
      mission: defineMission({
        id: 'hang',
        goal: 'g',
        workspace: dir,
        budgets: { maxAttempts: 1 },
        // It hangs on the candidate only: a check that times out on the baseline blocks the run (environment).
        // The timeout leaves the baseline's quick grep time to end on a loaded machine.
        checks: [{ name: 'hang', kind: 'command', tier: 'demand', command: 'grep -q x a.txt && sleep 30', timeout: '2s' }],
      }),
      proposer: functionProposer(() => ({ files: { 'a.txt': 'x' } })),
    });
    const hang = result.findings.find((item) => item.check === 'hang');
    assert.deepEqual([hang?.status, hang?.reasonCodes], ['error', ['process.timeout']]);
    assert.equal(result.outcome, 'failed_with_evidence');
  });

  it('turns a crashing custom check into an error finding and still seals the run', async () => {
    const crash: Check = {
      name: 'crash',
      stage: 'fast',
      tier: 'demand',
      required: true,
      run: async () => {
        throw new Error('boom');
      },
    };
    const result = await runMission({
      mission: defineMission({ id: 'crash', goal: 'g', budgets: { maxAttempts: 1 } }),
      proposer: functionProposer(() => ({ value: 1 })),
      checks: [crash],
    });
    const found = result.findings.find((item) => item.check === 'crash');
    assert.deepEqual([found?.status, found?.reasonCodes], ['error', ['check.crashed']]);
    assert.match(found?.message ?? '', /boom/);
    assert.equal(result.outcome, 'failed_with_evidence');
  });

  it('records a command check killed by a signal as process.crashed', async () => {
    const check = commandCheck({ name: 'self-kill', command: 'kill -9 $$' });
    const dir = await tempWorkspace({});
    const [found] = await check.run({
      dir,
      candidate: { files: {}, footprint: [], hash: '' },
      goal: '',
      attempt: 1,
      signal: new AbortController().signal,
    });
    assert.deepEqual(found?.reasonCodes, ['process.crashed']);
  });
});

describe('acceptance', () => {
  it('refuses to complete a run whose mission changed under it', async () => {
    const ledger = new MemoryLedger();
    // A mission object that is not frozen, changed by the proposer during the run.
    const mission = { ...defineMission({ id: 'mutable', goal: 'g', budgets: { maxAttempts: 1 } }) };
    const result = await runMission({
      mission,
      proposer: functionProposer(() => {
        (mission as { goal: string }).goal = 'something easier';
        return { value: 'ok' };
      }),
      checks: [valueIs('ok')],
      ledger,
    });
    assert.equal(result.outcome, 'failed_with_evidence');
    const decision = (await ledger.records(result.runId)).findLast((record) => record.type === 'decision');
    assert.deepEqual(decision?.type === 'decision' ? decision.data.acceptance?.problems : undefined, [
      'the mission changed during the run',
    ]);
  });
});
