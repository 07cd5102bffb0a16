import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { scoreCheck } from '../../src/checks/score-check.js';
import { AdaptivePriors } from '../../src/guards/adaptive-priors.js';
import type { LedgerRecord } from '../../src/ledger/ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { recoverRuns } from '../../src/loop/resume.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission, type Mission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { dyingAfter } from '../helpers/ledgers.js';
import { dataOf } from '../helpers/records.js';

// A recorded agent that wanders (A, B, back to A) before it answers, so that guards and the judge both
// have work to do; every record of its run is a crash point below, each one run again and resumed.
const PROPOSALS = ['one', 'two', 'one', 'ok'].map((answer) => ({ files: { 'answer.txt': `${answer}\n` } }));

async function scenario(): Promise<Mission> {
  const dir = await tempWorkspace({ 'ws/answer.txt': 'zero\n' });
  await writeFile(path.join(dir, 'attempts.json'), JSON.stringify(PROPOSALS));
  return defineMission(
    {
      id: 'resumable',
      goal: 'answer ok',
      workspace: 'ws',
      budgets: { maxAttempts: 8 },
      stopPolicy: { guards: [{ noProgress: { window: 7 } }, { rejectRepeat: {} }] },
      checks: [{ name: 'answer', kind: 'expected-output', command: 'cat answer.txt', expected: 'ok' }],
      proposer: { kind: 'replay', file: 'attempts.json' },
    },
    { baseDir: dir },
  );
}

/** The part of a run's story that must not depend on an interruption. */
function story(records: readonly LedgerRecord[]): unknown[] {
  return records
    .filter((record) => record.type !== 'run.resumed')
    .map((record) => {
      const { type, data } = record;
      if (type === 'attempt')
        return { type, attempt: data.attempt, candidate: (data.candidate as { hash: string }).hash, summary: data.summary };
      if (type === 'decision')
        return { type, attempt: data.attempt, verdict: data.verdict, decision: data.decision, overridden: data.overridden };
      if (type === 'run.sealed')
        return { type, outcome: data.outcome, verification: data.verification, stopReason: data.stopReason, attempts: data.attempts };
      return { type };
    });
}

describe('recovery', () => {
  it('resumes a run interrupted after any record with the same verdicts, decisions and outcome', async () => {
    const mission = await scenario();
    const dir = await tempWorkspace({});
    const reference = await SqliteLedger.open({ database: path.join(dir, 'reference.db'), synchronous: 'off' });
    const uninterrupted = await runMission({ mission, ledger: reference });
    const expected = story(await reference.records(uninterrupted.runId));
    assert.equal(uninterrupted.outcome, 'complete');
    assert.ok(expected.length > 10);

    for (let limit = 1; limit < expected.length; limit += 1) {
      const file = path.join(dir, `crash-${limit}.db`);
      const ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
      await assert.rejects(runMission({ mission, ledger: dyingAfter(ledger, limit) }), /process killed/);
      const [unsealed] = await ledger.runs({ unsealed: true });
      assert.ok(unsealed !== undefined, `crash after ${limit} records leaves an unsealed run`);
      const recoveries = await recoverRuns({ ledger });
      assert.deepEqual(
        recoveries.map((item) => item.action),
        ['resumed'],
        `crash after ${limit}: ${JSON.stringify(recoveries)}`,
      );
      assert.deepEqual(story(await ledger.records(unsealed.runId)), expected, `crash after ${limit} records`);
      assert.ok((await verifyLedger(ledger)).ok);
      assert.deepEqual(await ledger.runs({ unsealed: true }), []);
      await ledger.close();
      await rm(file, { force: true });
    }
    await reference.close();
  });

  it('resumes from the saved snapshot, or from an unchanged workspace, and refuses a changed one once the snapshot is gone', async () => {
    const mission = await scenario();
    const dir = await tempWorkspace({});
    const scratchDir = path.join(dir, 'scratch');
    for (const [what, expected] of [
      ['kept', 'resumed'],
      ['gone', 'resumed'],
      ['gone+changed', 'sealed_crashed'],
    ] as const) {
      const ledger = await SqliteLedger.open({ database: path.join(dir, `${what}.db`), synchronous: 'off' });
      await assert.rejects(runMission({ mission, ledger: dyingAfter(ledger, 6), scratchDir }), /process killed/);
      const [unsealed] = await ledger.runs({ unsealed: true });
      const runDir = path.join(scratchDir, 'redline-runs', unsealed?.runId as string);
      assert.ok(existsSync(path.join(runDir, 'snapshot.state')), 'an unsealed run keeps its snapshot');
      if (what !== 'kept') await rm(runDir, { recursive: true });
      if (what === 'gone+changed') await writeFile(path.join(mission.workspaceDir as string, 'answer.txt'), 'changed\n');
      const [recovery] = await recoverRuns({ ledger, scratchDir });
      assert.equal(recovery?.action, expected, JSON.stringify(recovery));
      if (expected === 'sealed_crashed') assert.match(recovery?.detail ?? '', /snapshot is gone .* no longer matches its baseline/);
      else assert.equal(recovery?.result?.outcome, 'complete');
      assert.equal(existsSync(runDir), false, 'the run directory is removed once the run is sealed');
      await ledger.close();
    }
  });

  it('seals a run crashed whose proposer cannot be rebuilt, keeping its evidence', async () => {
    const dir = await tempWorkspace({});
    const ledger = await SqliteLedger.open({ database: path.join(dir, 'l.db'), synchronous: 'off' });
    const mission = defineMission({ id: 'library', goal: 'g', budgets: { maxAttempts: 5 } });
    await assert.rejects(
      runMission({ mission, ledger: dyingAfter(ledger, 4), proposer: functionProposer(({ attempt }) => ({ value: attempt })) }),
      /process killed/,
    );
    const [recovery] = await recoverRuns({ ledger });
    assert.equal(recovery?.action, 'sealed_crashed');
    const [run] = await ledger.runs({ runId: recovery?.runId as string });
    assert.deepEqual(
      [run?.sealed, run?.outcome, run?.verification, run?.stopReason],
      [true, 'failed_with_evidence', 'unverified', 'crashed'],
    );
    const records = await ledger.records(recovery?.runId as string);
    assert.equal(records.length, 5);
    assert.match(String(dataOf(records, 'run.sealed').detail), /proposer cannot be rebuilt/);
    assert.ok((await verifyLedger(ledger)).ok);
    await ledger.close();
  });

  it('seals a run crashed whose mission held a secret in a command: the record holds *** where the key was', async () => {
    const dir = await tempWorkspace({ 'ws/answer.txt': 'zero\n' });
    const ledger = await SqliteLedger.open({ database: path.join(dir, 'l.db'), synchronous: 'off' });
    const mission = defineMission(
      {
        id: 'keyed',
        goal: 'answer ok',
        workspace: 'ws',
        checks: [{ name: 'answer', kind: 'expected-output', command: 'cat answer.txt', expected: 'ok' }],
        proposer: { kind: 'command', command: `API_TOKEN=tok-1 node -e "process.stdout.write('{}')"` },
      },
      { baseDir: dir },
    );
    await assert.rejects(runMission({ mission, ledger: dyingAfter(ledger, 3) }), /process killed/);
    const [recovery] = await recoverRuns({ ledger });
    assert.equal(recovery?.action, 'sealed_crashed', JSON.stringify(recovery));
    assert.match(recovery?.detail ?? '', /its recorded commands had secrets redacted \(pass keys by environment/);
    const started = dataOf(await ledger.records(recovery?.runId as string), 'run.started');
    assert.equal((started.mission.proposer as { command: string }).command, `API_TOKEN=*** node -e "process.stdout.write('{}')"`);
    assert.ok((await verifyLedger(ledger)).ok);
    await ledger.close();
  });

  it('teaches the adaptive priors every attempt of a resumed run, those before the crash too', async () => {
    const dir = await tempWorkspace({});
    const ledger = await SqliteLedger.open({ database: path.join(dir, 'l.db'), synchronous: 'off' });
    const scores = [0.2, 0.3, 0.45, 0.5];
    const options = {
      proposer: functionProposer(({ attempt }) => ({ value: scores[attempt - 1] })),
      checks: [scoreCheck({ name: 'quality', score: ({ candidate }) => Number(candidate.value) })],
    };
    const mission = defineMission({ id: 'scored', goal: 'g', taskType: 'essay', budgets: { maxAttempts: 4 }, stopPolicy: { guards: [] } });
    // run.started, then attempt and decision 1 and 2: the process dies writing attempt 3.
    await assert.rejects(runMission({ mission, ledger: dyingAfter(ledger, 5), ...options }), /process killed/);
    assert.equal(await ledger.priors('essay'), undefined);
    const [recovery] = await recoverRuns({ ledger, ...options });
    assert.equal(recovery?.action, 'resumed');
    const expected = new AdaptivePriors();
    expected.record('essay', scores);
    assert.deepEqual(await ledger.priors('essay'), expected.toJSON().essay);
    await ledger.close();
  });
});
