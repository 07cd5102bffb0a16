import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { recordsOf } from '../../src/ledger/run-records.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('a mission whose own checks are all format checks', () => {
  it('stops when they pass, blocked / no_demand_signal / unverified, instead of retrying to the budget', async () => {
    const dir = await tempWorkspace({ 'out.json': '{}\n' });
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: defineMission({
        id: 'format-only',
        goal: 'write a report',
        workspace: dir,
        budgets: { maxAttempts: 5 },
        checks: [
          {
            name: 'parses',
            kind: 'command',
            tier: 'format',
            command: "node -e \"JSON.parse(require('fs').readFileSync('out.json','utf8'))\"",
          },
          { name: 'exit-0', kind: 'command', tier: 'format', command: 'true' },
        ],
      }),
      ledger,
      proposer: functionProposer(({ attempt }) => ({ files: { 'out.json': `{"attempt": ${attempt}}\n` } })),
    });
    assert.deepEqual(
      [result.outcome, result.stopReason, result.verification, result.attempts],
      ['blocked', 'no_demand_signal', 'unverified', 1],
    );
    const decisions = recordsOf(await ledger.records(result.runId), 'decision').map((record) => record.data.decision);
    // No decision says "checks failing" when none failed.
    assert.ok(
      decisions.every((decision) => decision?.reason !== 'checks_failing'),
      JSON.stringify(decisions),
    );
  });

  it('retries while a format check fails, and says so', async () => {
    const dir = await tempWorkspace({ 'out.json': 'not json\n' });
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: defineMission({
        id: 'format-failing',
        goal: 'write a report',
        workspace: dir,
        budgets: { maxAttempts: 2 },
        checks: [
          {
            name: 'parses',
            kind: 'command',
            tier: 'format',
            command: "node -e \"JSON.parse(require('fs').readFileSync('out.json','utf8'))\"",
          },
        ],
      }),
      ledger,
      proposer: functionProposer(({ attempt }) => ({ files: { 'out.json': attempt === 1 ? 'still not\n' : '{}\n' } })),
    });
    assert.deepEqual([result.outcome, result.stopReason, result.attempts], ['blocked', 'no_demand_signal', 2]);
    const [first] = recordsOf(await ledger.records(result.runId), 'decision').filter((record) => record.data.attempt === 1);
    assert.equal(first?.data.decision?.reason, 'checks_failing');
  });

  it('leaves a mission without checks of its own to its guards', async () => {
    const result = await runMission({
      mission: defineMission({ id: 'no-checks', goal: 'g', budgets: { maxAttempts: 2 } }),
      proposer: functionProposer(({ attempt }) => ({ value: attempt })),
    });
    assert.deepEqual([result.outcome, result.stopReason, result.attempts], ['failed_with_evidence', 'budget_attempts', 2]);
  });
});
