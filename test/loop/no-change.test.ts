import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import type { Finding } from '../../src/core/finding.js';
import type { LedgerRecord } from '../../src/ledger/ledger.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { recoverRuns } from '../../src/loop/resume.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission, type Mission } from '../../src/mission/mission.js';
import { commandProposer } from '../../src/proposers/command-proposer.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import type { ProposalState } from '../../src/proposers/proposer.js';
import { dyingAfter } from '../helpers/ledgers.js';
import { tempWorkspace } from '../helpers/workspace.js';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A proposer that repeats itself: attempts 2, 4 and 5 change nothing, so the run stops at 5 with no_change. */
const ANSWERS = ['one', 'one', 'two', 'two', 'two'];

/** What a run and its recovery are given: the proposer and an in-process check, which a resumed run rebuilds the same. */
const roles = {
  proposer: functionProposer(({ attempt }) => ({ value: ANSWERS[attempt - 1] })),
  checks: [answerCheck()],
};

function answerCheck(): Check {
  const check = { name: 'answer', stage: 'fast', tier: 'demand', required: true } as const;
  return { ...check, run: async ({ candidate }) => [finding(check, 'fail', [`answer:${String(candidate.value)}`], 'not ok')] };
}

const repeating: Mission = defineMission({
  id: 'repeating',
  goal: 'answer ok',
  budgets: { maxAttempts: 8 },
  stopPolicy: { guards: [{ noProgress: { window: 7 } }] },
});

/** What a run's records say, less what may differ with an interruption: times, durations, ids. */
function story(records: readonly LedgerRecord[]): unknown[] {
  const codes = (findings: unknown) => (findings as Finding[]).map((item) => `${item.check}:${item.status}:${item.reasonCodes.join(',')}`);
  return records
    .filter((record) => record.type !== 'run.resumed')
    .map(({ type, data }) => {
      if (type === 'attempt')
        return {
          type,
          attempt: data.attempt,
          candidate: (data.candidate as { hash: string }).hash,
          summary: data.summary,
          findings: codes(data.findings),
        };
      if (type === 'decision') {
        const { counters, ...state } = data.state as { counters: Record<string, unknown> };
        const { elapsedMs: _clock, ...counted } = counters;
        return { type, attempt: data.attempt, verdict: data.verdict, decision: data.decision, state: { ...state, counters: counted } };
      }
      if (type === 'run.sealed')
        return { type, outcome: data.outcome, stopReason: data.stopReason, attempts: data.attempts, detail: data.detail };
      return { type };
    });
}

describe('an attempt that changes nothing', () => {
  it('is no candidate: the findings that still hold follow its finding, the next proposal sees both, and the state does not move', async () => {
    const seen: ProposalState[] = [];
    const values = ['a', 'a', 'b'];
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: defineMission({ id: 'values', goal: 'g', budgets: { maxAttempts: 3 }, stopPolicy: { guards: [] } }),
      proposer: functionProposer(({ attempt, state }) => {
        seen.push(state);
        return { value: values[attempt - 1] };
      }),
      checks: [answerCheck()],
      ledger,
    });
    assert.equal(result.attempts, 3);
    const attempts = (await ledger.records(result.runId)).flatMap((record) => (record.type === 'attempt' ? [record.data] : []));
    const [first, second] = attempts;
    assert.deepEqual(
      second?.findings?.map((item) => [item.check, item.status, item.reasonCodes]),
      [
        ['proposer', 'fail', ['proposer.no_change']],
        ['answer', 'fail', ['answer:a']],
      ],
    );
    assert.equal(second?.findings?.[0]?.message.split('\n')[0], 'the proposer changed nothing');
    // The same state as the attempt before: the same signature, no progress, no score of its own, one more round without progress.
    assert.deepEqual(
      [second?.summary?.signature, second?.summary?.noChange, second?.summary?.progress, second?.counters?.sinceProgress],
      [first?.summary?.signature, true, false, (first?.counters?.sinceProgress ?? 0) + 1],
    );
    assert.deepEqual(second?.frontier, first?.frontier);
    // Attempt 3's proposer saw the unchanged candidate with that finding and the findings that still hold.
    assert.deepEqual(seen[2]?.candidate?.value, 'a');
    assert.deepEqual(
      seen[2]?.findings.map((item) => item.reasonCodes[0]),
      ['proposer.no_change', 'answer:a'],
    );
  });

  it('a command proposer that returns no files changed nothing, in words with its account', async () => {
    const dir = await tempWorkspace({ 'a.txt': 'a\n' });
    dirs.push(dir);
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: defineMission({
        id: 'empty',
        goal: 'g',
        workspace: dir,
        budgets: { maxAttempts: 5 },
        checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'grep -q b a.txt' }],
      }),
      proposer: commandProposer({ command: `echo 'nothing to do' >&2; printf '{}'`, cwd: dir }),
      ledger,
    });
    // The default policy's repeatedOutput(3, 2) would have stopped it too: the runtime's guard comes first.
    assert.deepEqual([result.stopReason, result.attempts], ['no_change', 2]);
    assert.match(result.findings[0]?.message ?? '', /^the proposer changed nothing \(exit 0, \d+ ms\); its last stderr: nothing to do\n/);
  });

  it('resumed after any record, a run whose attempts changed nothing gives the same verdicts and the same stop', async () => {
    const reference = new MemoryLedger();
    const uninterrupted = await runMission({ mission: repeating, ledger: reference, ...roles });
    const expected = story(await reference.records(uninterrupted.runId));
    assert.deepEqual([uninterrupted.stopReason, uninterrupted.attempts], ['no_change', 5]);

    for (let limit = 1; limit < expected.length; limit += 1) {
      const ledger = new MemoryLedger();
      await assert.rejects(runMission({ mission: repeating, ledger: dyingAfter(ledger, limit), ...roles }), /process killed/);
      const [unsealed] = await ledger.runs({ unsealed: true });
      const recoveries = await recoverRuns({ ledger, ...roles });
      assert.deepEqual(
        recoveries.map((item) => item.action),
        ['resumed'],
        `crash after ${limit}`,
      );
      assert.deepEqual(story(await ledger.records(unsealed?.runId as string)), expected, `crash after ${limit} records`);
      assert.ok((await verifyLedger(ledger)).ok);
    }
  });
});
