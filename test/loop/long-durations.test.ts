import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { commandProposer } from '../../src/proposers/command-proposer.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { startOpenAIStub } from '../../src/testing/openai-stub-server.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { dataOf } from '../helpers/records.js';

// Every duration here is beyond setTimeout's 2^31−1 ms (about 24.8 days): one armed as it is fires after 1 ms.
describe('durations beyond 24.8 days', () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => {
    if (warning.name === 'TimeoutOverflowWarning') warnings.push(warning.message);
  };
  before(() => process.on('warning', onWarning));
  after(() => process.off('warning', onWarning));

  it('a 597h wall-clock budget lets the run complete', async () => {
    const dir = await tempWorkspace({ 'a.txt': 'a\n' });
    const result = await runMission({
      mission: defineMission({
        id: 'long-budget',
        goal: 'g',
        workspace: dir,
        budgets: { maxAttempts: 2, maxWallClock: '597h' },
        checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'grep -q b a.txt' }],
      }),
      // The proposer takes a moment: a budget that fired at once would end the run here.
      proposer: functionProposer(async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { files: { 'a.txt': 'b\n' } };
      }),
    });
    assert.deepEqual([result.outcome, result.stopReason, result.attempts], ['complete', 'demand_passed', 1]);
    assert.deepEqual(warnings, []);
  });

  it('a 600h check timeout lets the check run to its end', async () => {
    const dir = await tempWorkspace({ 'a.txt': 'a\n' });
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: defineMission({
        id: 'long-check',
        goal: 'g',
        workspace: dir,
        budgets: { maxAttempts: 1 },
        checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'sleep 0.1 && grep -q b a.txt', timeout: '600h' }],
      }),
      proposer: functionProposer(() => ({ files: { 'a.txt': 'b\n' } })),
      ledger,
    });
    const findings = dataOf(await ledger.records(result.runId), 'attempt').findings ?? [];
    assert.deepEqual(
      findings.find((item) => item.check === 't'),
      { ...findings.find((item) => item.check === 't'), status: 'pass' },
    );
    assert.equal(result.outcome, 'complete');
    assert.deepEqual(warnings, []);
  });

  it('a 600h proposer timeout lets the proposer answer', async () => {
    const dir = await tempWorkspace({ 'a.txt': 'a\n' });
    const answer = JSON.stringify({ files: { 'a.txt': 'b\n' } });
    const result = await runMission({
      mission: defineMission({
        id: 'long-proposer',
        goal: 'g',
        workspace: dir,
        budgets: { maxAttempts: 1 },
        checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'grep -q b a.txt' }],
      }),
      proposer: commandProposer({
        command: ['node', '-e', `setTimeout(() => process.stdout.write(${JSON.stringify(answer)}), 100)`],
        cwd: dir,
        timeoutMs: 600 * 3_600_000,
      }),
    });
    assert.deepEqual([result.outcome, result.attempts], ['complete', 1]);
    assert.deepEqual(warnings, []);
  });

  it('a 600h timeout of a model score check lets the model answer', async () => {
    const stub = await startOpenAIStub({ replies: [{ content: JSON.stringify({ score: 0.9, findings: [] }), delayMs: 50 }] });
    process.env.REDLINE_TEST_LONG_KEY = 'key';
    try {
      const ledger = new MemoryLedger();
      const result = await runMission({
        mission: defineMission({
          id: 'long-model',
          goal: 'g',
          budgets: { maxAttempts: 1 },
          checks: [
            {
              name: 'judge',
              kind: 'score',
              timeout: '600h',
              model: { baseURL: stub.baseURL, model: 'stub-judge', apiKeyEnv: 'REDLINE_TEST_LONG_KEY', rubric: 'r' },
            },
          ],
        }),
        proposer: functionProposer(() => ({ value: { answer: 42 } })),
        ledger,
      });
      const findings = dataOf(await ledger.records(result.runId), 'attempt').findings ?? [];
      assert.equal(findings.find((item) => item.check === 'judge')?.status, 'pass', JSON.stringify(findings));
      assert.deepEqual(warnings, []);
    } finally {
      delete process.env.REDLINE_TEST_LONG_KEY;
      await stub.close();
    }
  });
});
