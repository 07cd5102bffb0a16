import assert from 'node:assert/strict';
import { chmod, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { LedgerRecord } from '../../src/ledger/ledger.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { recoverRuns } from '../../src/loop/resume.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission, type Mission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { dyingAfter } from '../helpers/ledgers.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { dataOf } from '../helpers/records.js';

type CheckInput = Record<string, unknown>;

function missionOf(dir: string, checks: readonly CheckInput[], fields: Record<string, unknown> = {}): Mission {
  return defineMission({ id: 'env', goal: 'make it pass', workspace: dir, budgets: { maxAttempts: 3 }, checks, ...fields });
}

/** Runs a mission with a proposer that counts its calls; returns the result, the calls and the records. */
async function run(
  mission: Mission,
): Promise<{ result: Awaited<ReturnType<typeof runMission>>; proposals: number; records: readonly LedgerRecord[] }> {
  let proposals = 0;
  const ledger = new MemoryLedger();
  const result = await runMission({
    mission,
    ledger,
    proposer: functionProposer(() => {
      proposals += 1;
      return { files: { 'src/a.js': `export const a = ${proposals};\n` } };
    }),
  });
  return { result, proposals, records: await ledger.records(result.runId) };
}

describe('blocked / environment: a required check that cannot run on the baseline', () => {
  it('a missing test binary seals blocked / environment with zero proposals, a baseline record and a brief naming the check and the error', async () => {
    const dir = await tempWorkspace({ 'src/a.js': 'export const a = 0;\n' });
    const { result, proposals, records } = await run(
      missionOf(dir, [{ name: 'tests', kind: 'test-runner', format: 'tap', command: 'redline-no-such-test-binary --reporter tap' }]),
    );
    assert.deepEqual(
      [result.outcome, result.stopReason, result.verification, result.attempts],
      ['blocked', 'environment', 'unverified', 0],
    );
    assert.equal(proposals, 0);
    assert.equal(result.guard, 'environment');
    assert.deepEqual(
      records.map((record) => record.type),
      ['run.started', 'baseline', 'decision', 'run.sealed'],
    );
    const baseline = records[1]?.data.findings as { check: string; status: string; reasonCodes: string[] }[];
    assert.deepEqual(
      baseline.filter((item) => item.check === 'tests').map((item) => [item.status, item.reasonCodes]),
      [['error', ['process.not_found']]],
    );
    assert.match(result.detail, /required check tests could not run on the baseline \(process\.not_found\)/);
    assert.match(result.detail, /redline-no-such-test-binary: (command )?not found/);
    assert.match(result.brief?.cutoffReason ?? '', /^environment: required check tests .*redline-no-such-test-binary/s);
    assert.equal(records.at(-1)?.data.stopReason, 'environment');
  });

  const cases: [string, (dir: string) => Promise<CheckInput>, string][] = [
    [
      'a program that cannot start (argv)',
      async () => ({ name: 'tests', kind: 'expected-output', command: ['redline-no-such-program'], expected: 'ok' }),
      'process.spawn_failed',
    ],
    [
      'a script that is not executable (exit 126)',
      async (dir) => {
        await writeFile(path.join(dir, 'test.sh'), '#!/bin/sh\necho ok\n');
        await chmod(path.join(dir, 'test.sh'), 0o644);
        return { name: 'tests', kind: 'command', tier: 'demand', command: './test.sh' };
      },
      'process.not_executable',
    ],
    [
      'a report file never written',
      async () => ({ name: 'tests', kind: 'test-runner', format: 'junit', reportFile: 'junit.xml', command: 'true' }),
      'report.missing',
    ],
    [
      "the check's own timeout",
      async () => ({ name: 'tests', kind: 'command', tier: 'demand', command: 'sleep 30', timeout: '300ms' }),
      'process.timeout',
    ],
  ];
  for (const [what, check, code] of cases) {
    it(`${what}: ${code}`, async () => {
      const dir = await tempWorkspace({ 'src/a.js': 'export const a = 0;\n' });
      const { result, proposals } = await run(missionOf(dir, [await check(dir)]));
      assert.deepEqual([result.outcome, result.stopReason, proposals], ['blocked', 'environment', 0]);
      assert.match(result.detail, new RegExp(`required check tests could not run on the baseline \\(${code.replace('.', '\\.')}\\)`));
    });
  }

  it('an advisory check that cannot run does not block; a required check that fails on the baseline goes on to attempts', async () => {
    const dir = await tempWorkspace({ 'src/a.js': 'export const a = 0;\n' });
    const { result, proposals } = await run(
      missionOf(dir, [
        { name: 'lint', kind: 'command', command: 'redline-no-such-linter', required: false },
        { name: 'tests', kind: 'command', tier: 'demand', command: 'grep -q "a = 2" src/a.js' },
      ]),
    );
    assert.deepEqual([result.outcome, result.stopReason, proposals], ['complete', 'demand_passed', 2]);
  });

  it('a missing program during an attempt is an error finding, not a failure of the candidate', async () => {
    const dir = await tempWorkspace({ 'src/a.js': 'export const a = 0;\n' });
    const { result } = await run(
      missionOf(dir, [
        { name: 'tests', kind: 'command', tier: 'demand', command: 'if grep -q "a = 0" src/a.js; then exit 1; fi; redline-gone' },
      ]),
    );
    assert.equal(result.stopReason, 'budget_attempts');
    assert.deepEqual(
      result.findings.filter((item) => item.check === 'tests').map((item) => [item.status, item.reasonCodes]),
      [['error', ['process.not_found']]],
    );
  });

  it('a run resumed after any record seals the same blocked / environment', async () => {
    const dir = await tempWorkspace({
      'ws/src/a.js': 'export const a = 0;\n',
      'attempts.json': JSON.stringify([{ files: { 'src/a.js': 'x\n' } }]),
    });
    const mission = defineMission(
      {
        id: 'env-resume',
        goal: 'g',
        workspace: 'ws',
        checks: [{ name: 'tests', kind: 'test-runner', format: 'tap', command: 'redline-no-such-test-binary' }],
        proposer: { kind: 'replay', file: 'attempts.json' },
      },
      { baseDir: dir },
    );
    for (let limit = 1; limit < 4; limit += 1) {
      const file = path.join(dir, `crash-${limit}.db`);
      const ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
      await assert.rejects(runMission({ mission, ledger: dyingAfter(ledger, limit) }), /process killed/);
      const [recovery] = await recoverRuns({ ledger });
      assert.equal(recovery?.action, 'resumed', JSON.stringify(recovery));
      const records = await ledger.records(recovery?.runId as string);
      assert.deepEqual(
        [
          dataOf(records, 'run.sealed').outcome,
          dataOf(records, 'run.sealed').stopReason,
          records.filter((record) => record.type === 'attempt').length,
        ],
        ['blocked', 'environment', 0],
        `crash after ${limit} records`,
      );
      assert.ok((await verifyLedger(ledger)).ok);
      await ledger.close();
      await rm(file, { force: true });
    }
  });
});

describe('blocked / unreachable: a required check on what no candidate in scope can change', () => {
  it('a declared output outside the scope and absent from the baseline blocks before any check or proposal', async () => {
    const dir = await tempWorkspace({ 'src/a.js': 'export const a = 0;\n' });
    const { result, proposals, records } = await run(
      missionOf(dir, [{ name: 'tests', kind: 'command', tier: 'demand', command: 'true' }], {
        scope: ['src/**'],
        declaredOutputs: ['dist/out.js'],
      }),
    );
    assert.deepEqual([result.outcome, result.stopReason, result.guard, proposals], ['blocked', 'unreachable', 'reachability', 0]);
    assert.match(result.detail, /declared output dist\/out\.js is outside the scope \(src\/\*\*\) and not in the baseline/);
    assert.deepEqual(
      records.map((record) => record.type),
      ['run.started', 'run.sealed'],
    );
  });

  it('a required json-schema check of a file outside the scope, absent from the baseline, with no program before it', async () => {
    const dir = await tempWorkspace({ 'src/a.js': 'export const a = 0;\n' });
    const schemaCheck = { name: 'config', kind: 'json-schema', file: 'config.json', schema: { type: 'object' } };
    const blocked = await run(missionOf(dir, [schemaCheck], { scope: ['src/**'] }));
    assert.deepEqual([blocked.result.stopReason, blocked.proposals], ['unreachable', 0]);
    assert.match(blocked.result.detail, /required check config reads config\.json, which is outside the scope/);
    // A program that runs before it may write the file into the check copy: not decided statically.
    const generated = await run(
      missionOf(dir, [{ name: 'build', kind: 'command', command: 'echo {} > config.json' }, schemaCheck], { scope: ['src/**'] }),
    );
    assert.notEqual(generated.result.stopReason, 'unreachable');
    assert.ok(generated.proposals > 0);
  });

  it('a declared output in the scope, or outside it but on the baseline, is reachable', async () => {
    const dir = await tempWorkspace({ 'src/a.js': 'export const a = 0;\n', 'dist/out.js': '' });
    // Reachable: the loop proposes. In the scope, the proposer (which never writes src/b.js) keeps trying to
    // the budget; on the baseline, the output is there and the run completes at its first attempt.
    for (const [declaredOutputs, expected] of [
      [['src/b.js'], ['failed_with_evidence', 'budget_attempts', 3, 3]],
      [['dist/out.js'], ['complete', 'demand_passed', 1, 1]],
    ] as const) {
      const { result, proposals } = await run(
        missionOf(dir, [{ name: 'tests', kind: 'command', tier: 'demand', command: 'grep -q "a = 1" src/a.js' }], {
          scope: ['src/**'],
          declaredOutputs: [...declaredOutputs],
        }),
      );
      assert.deepEqual([result.outcome, result.stopReason, result.attempts, proposals], expected);
    }
  });
});

describe('a script the check command names that is missing from the copy', () => {
  it('outside the scope (a test runner under node_modules that was not there): blocked / environment with zero proposals, naming the script', async () => {
    const dir = await tempWorkspace({ 'src/a.js': 'export const a = 0;\n', 'test/a.test.js': 'process.exit(0);\n' });
    const { result, proposals, records } = await run(
      missionOf(
        dir,
        [{ name: 'tests', kind: 'test-runner', format: 'tap', command: ['node', 'node_modules/tape/bin/tape', 'test/a.test.js'] }],
        { scope: ['src/**'] },
      ),
    );
    assert.deepEqual([result.outcome, result.stopReason, result.attempts, proposals], ['blocked', 'environment', 0, 0]);
    const baseline = records[1]?.data.findings as { check: string; status: string; reasonCodes: string[]; location?: { file?: string } }[];
    assert.deepEqual(
      baseline.filter((item) => item.check === 'tests').map((item) => [item.status, item.reasonCodes, item.location?.file]),
      [['error', ['process.script_missing'], 'node_modules/tape/bin/tape']],
    );
    assert.match(
      result.detail,
      /required check tests could not run on the baseline \(process\.script_missing\): the command's script node_modules\/tape\/bin\/tape is not in the check's copy/,
    );
  });

  it("inside the scope: the candidate's to write, so the run goes on and completes once it does", async () => {
    const dir = await tempWorkspace({ 'README.md': 'write main.js\n' });
    let proposals = 0;
    const result = await runMission({
      mission: missionOf(dir, [{ name: 'prints', kind: 'expected-output', command: ['node', 'main.js'], expected: 'ok\n' }]),
      proposer: functionProposer(() => {
        proposals += 1;
        return { files: { 'main.js': 'console.log("ok");\n' } };
      }),
    });
    assert.deepEqual([result.outcome, result.stopReason, result.attempts, proposals], ['complete', 'demand_passed', 1, 1]);
  });
});

describe('a mission with no demand check', () => {
  it('a required command check (a linter) whose program is missing: blocked / environment before any proposal', async () => {
    const dir = await tempWorkspace({ 'src/a.js': 'export const a = 0;\n' });
    const { result, proposals, records } = await run(
      missionOf(dir, [{ name: 'lint', kind: 'command', command: ['redline-no-such-linter', 'src'] }]),
    );
    assert.deepEqual([result.outcome, result.stopReason, result.attempts, proposals], ['blocked', 'environment', 0, 0]);
    assert.deepEqual(
      records.map((record) => record.type),
      ['run.started', 'baseline', 'decision', 'run.sealed'],
    );
  });

  it('a required command check that runs: the baseline is recorded and the loop goes on (no demand red line, so no noop)', async () => {
    const dir = await tempWorkspace({ 'src/a.js': 'export const a = 0;\n' });
    const { result, proposals, records } = await run(
      missionOf(dir, [{ name: 'lint', kind: 'command', command: ['node', '-e', 'process.exit(0)'] }], { budgets: { maxAttempts: 1 } }),
    );
    assert.equal(records[1]?.type, 'baseline');
    assert.equal(proposals, 1);
    // Format checks alone never accept: when they pass, the run stops without a demand signal.
    assert.deepEqual([result.outcome, result.stopReason], ['blocked', 'no_demand_signal']);
  });

  it('only semantic or built-in checks: no baseline, as before', async () => {
    const dir = await tempWorkspace({ 'src/a.js': 'export const a = 0;\n' });
    const { records } = await run(missionOf(dir, [], { budgets: { maxAttempts: 1 } }));
    assert.equal(records[1]?.type, 'attempt');
  });
});
