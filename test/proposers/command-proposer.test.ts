import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { commandProposer } from '../../src/proposers/command-proposer.js';
import { tempWorkspace } from '../helpers/workspace.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/proposers');

const runs = new Map<string, ReturnType<typeof run>>();
/** The run of a proposer misbehaving in `mode`, once per mode: the cases that read the same run share it. */
async function misbehaving(mode: string, extra: { timeoutMs?: number; outputCap?: number } = {}) {
  if (!runs.has(mode)) runs.set(mode, run(mode, extra));
  return runs.get(mode) as ReturnType<typeof run>;
}

async function run(mode: string, extra: { timeoutMs?: number; outputCap?: number }) {
  const dir = await tempWorkspace({ 'src/a.txt': 'a' });
  const ledger = new MemoryLedger();
  const result = await runMission({
    mission: defineMission({
      id: `bad-${mode}`,
      goal: 'g',
      workspace: dir,
      budgets: { maxAttempts: 2 },
      stopPolicy: { guards: [] },
      checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'false' }],
    }),
    proposer: commandProposer({ command: ['sh', path.join(FIXTURES, 'misbehave.sh'), mode], cwd: dir, ...extra }),
    ledger,
  });
  return { result, records: await ledger.records(result.runId) };
}

describe('command proposer', () => {
  it('drives a separate program that speaks the protocol to completion', async () => {
    const dir = await tempWorkspace({ 'src/answer.txt': '0\n' });
    const result = await runMission({
      mission: defineMission({
        id: 'answer',
        goal: 'write the answer',
        workspace: dir,
        scope: ['src/**'],
        checks: [{ name: 'answer', kind: 'expected-output', command: 'cat src/answer.txt', expected: '42' }],
      }),
      proposer: commandProposer({
        command: ['node', path.join(FIXTURES, 'answer-agent.mjs')],
        cwd: dir,
        reportsTokens: true,
        reportsCost: true,
      }),
    });
    assert.deepEqual([result.outcome, result.verification, result.attempts], ['complete', 'verified', 2]);
    assert.equal(result.candidate.files['src/answer.txt'], '42\n');
    assert.equal(result.counters.inputTokens, 240);
  });

  for (const [mode, code, extra] of [
    ['bad-json', 'proposer.bad_json', {}],
    ['exit', 'proposer.exit_nonzero', {}],
    ['flood', 'proposer.output_cap', { outputCap: 1024 }],
    ['bad-shape', 'proposer.bad_output', {}],
    ['bad-path', 'proposer.bad_path', {}],
    ['sleep', 'proposer.timeout', { timeoutMs: 300 }],
  ] as const) {
    it(`records ${mode} as an ${code} error finding and still seals the run`, async () => {
      const { result, records } = await misbehaving(mode, extra);
      assert.equal(result.outcome, 'failed_with_evidence');
      assert.equal(result.stopReason, 'budget_attempts');
      const attempts = records.flatMap((record) => (record.type === 'attempt' ? [record.data] : []));
      assert.equal(attempts.length, 2);
      for (const attempt of attempts) {
        const findings = attempt.findings ?? [];
        assert.deepEqual(findings[0], { ...findings[0], check: 'proposer', status: 'error', reasonCodes: [code] });
        assert.ok(findings.slice(1).every((item) => item.status === 'skipped' && item.skipReason === 'proposer_error'));
      }
      assert.equal(records.at(-1)?.type, 'run.sealed');
    });
  }

  it('keeps the stderr of a crashed proposer as evidence', async () => {
    const { result } = await misbehaving('exit');
    assert.match(result.findings[0]?.evidenceRef ?? '', /out of memory/);
  });
});
