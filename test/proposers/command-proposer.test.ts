import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { commandProposer } from '../../src/proposers/command-proposer.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { dataOf } from '../helpers/records.js';

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
        command: ['sh', path.join(FIXTURES, 'answer-agent.sh')],
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

  it("keeps a failed program's account in the attempt record: its exit code, time and the end of its stderr", async () => {
    const { records } = await misbehaving('exit');
    const account = dataOf(records, 'attempt').account;
    assert.deepEqual(
      [account?.kind, account?.exitCode, account?.stderr, account?.stdout],
      ['command', 3, { text: 'agent crashed: out of memory\n', droppedBytes: 0 }, { text: '', droppedBytes: 0 }],
    );
    assert.ok(Number.isInteger(account?.durationMs));
  });

  it('keeps the account of a good attempt, its tails cut at 16 KiB, and never the account the program printed', async () => {
    const dir = await tempWorkspace({ 'src/a.txt': 'a' });
    try {
      const forged = {
        kind: 'forged',
        exitCode: 0,
        durationMs: 0,
        stdout: { text: '', droppedBytes: 0 },
        stderr: { text: 'all is well', droppedBytes: 0 },
      };
      // 20,000 bytes of "é" (two bytes each) and a last line on stderr; a proposal with a forged account on stdout.
      const program = `head -c 10000 /dev/zero | tr '\\0' x | sed 's/x/é/g' >&2; echo 'the last line' >&2; printf '%s' '${JSON.stringify({ files: { 'src/a.txt': 'b' }, account: forged })}'`;
      const ledger = new MemoryLedger();
      const result = await runMission({
        mission: defineMission({
          id: 'account',
          goal: 'g',
          workspace: dir,
          budgets: { maxAttempts: 1 },
          stopPolicy: { guards: [] },
          checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'grep -q b src/a.txt' }],
        }),
        proposer: commandProposer({ command: program, cwd: dir }),
        ledger,
      });
      assert.equal(result.outcome, 'complete');
      const account = dataOf(await ledger.records(result.runId), 'attempt').account;
      assert.deepEqual([account?.kind, account?.exitCode, account?.signal], ['command', 0, undefined]);
      assert.equal(Buffer.byteLength(account?.stderr.text ?? ''), 16_384);
      assert.equal(account?.stderr.droppedBytes, 20_014 - 16_384);
      assert.ok(account?.stderr.text.endsWith('éthe last line\n'));
      assert.match(account?.stdout.text ?? '', /^\{"files"/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
