import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import { functionJudge } from '../../src/judge/judge.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';

const failing: Check = {
  name: 'tests',
  stage: 'fast',
  tier: 'demand',
  required: true,
  run: async () => [finding(failing, 'fail', ['test.failed:adds'], 'adds failed')],
};

async function judged(decision: unknown, onRejectedDecision: 'fail' | 'block' = 'fail') {
  const ledger = new MemoryLedger();
  const result = await runMission({
    mission: defineMission({ id: 'judged', goal: 'g', budgets: { maxAttempts: 3 }, stopPolicy: { guards: [], onRejectedDecision } }),
    proposer: functionProposer(() => ({ value: 1 })),
    checks: [failing],
    // The baseline decision is the routing table's; the judge under test decides attempt 1.
    judge: functionJudge((evidence) =>
      evidence.attempt === 0 ? { transition: 'retry', reason: 'baseline' } : typeof decision === 'function' ? decision() : decision,
    ),
    ledger,
  });
  const decisions = (await ledger.records(result.runId)).flatMap((record) => (record.type === 'decision' ? [record.data] : []));
  return { result, rejection: decisions.find((data) => data.rejection !== undefined)?.rejection };
}

describe('judge decisions are validated before they are applied', () => {
  const cases: [string, unknown, string][] = [
    ['cites a finding that does not exist', { transition: 'retry', reason: 'r', cites: ['lint#no-semi'] }, 'decision.unknown_citation'],
    ['accepts with incomplete evidence', { transition: 'accept', reason: 'looks_good', cites: ['tests'] }, 'decision.incomplete_evidence'],
    ['changes the budgets', { transition: 'retry', reason: 'r', budgets: { maxAttempts: 99 } }, 'decision.mission_change'],
    ['changes the scope', { transition: 'retry', reason: 'r', scope: ['**'] }, 'decision.mission_change'],
    ['names an undeclared transition', { transition: 'escalate', reason: 'r' }, 'decision.undeclared_transition'],
    ['tries to admit the candidate', { transition: 'admit', reason: 'ship_it' }, 'decision.admit_attempt'],
    ['returns something that is not a decision', 'accept', 'decision.malformed'],
    [
      'throws',
      () => {
        throw new Error('judge down');
      },
      'decision.judge_failed',
    ],
  ];
  for (const [what, decision, code] of cases) {
    it(`rejects and records a judge that ${what} (${code}), and seals the run`, async () => {
      const { result, rejection } = await judged(decision);
      assert.equal(rejection?.code, code);
      assert.deepEqual([result.outcome, result.stopReason, result.attempts], ['failed_with_evidence', 'invalid_decision', 1]);
      assert.match(result.detail, new RegExp(code.replace('.', '\\.')));
    });
  }

  it('blocks instead of failing when the mission says so', async () => {
    const { result } = await judged({ transition: 'admit', reason: 'x' }, 'block');
    assert.deepEqual([result.outcome, result.stopReason], ['blocked', 'invalid_decision']);
    assert.ok(result.brief !== undefined);
  });

  it('applies a valid decision that cites a finding by check and reason code', async () => {
    const { result, rejection } = await judged({ transition: 'fail', reason: 'hopeless', cites: ['tests#test.failed:adds'] });
    assert.equal(rejection, undefined);
    assert.deepEqual([result.outcome, result.stopReason], ['failed_with_evidence', 'hopeless']);
  });
});
