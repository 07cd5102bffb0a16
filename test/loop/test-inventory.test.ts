import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { finding, type Check, type CheckContext } from '../../src/core/check.js';
import { ALLOWED_MISSING_CODE, type TestInventory } from '../../src/core/test-inventory.js';
import { describeRun, runSummary } from '../../src/cli/format.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { recoverRuns } from '../../src/loop/resume.js';
import { dyingAfter } from '../helpers/ledgers.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { dataOf } from '../helpers/records.js';
import { redline } from '../cli/redline.js';

const dir = await tempWorkspace({});
after(() => rm(dir, { recursive: true, force: true }));

const BASELINE: TestInventory = {
  cases: [
    { id: 'test/a.test.js > adds', status: 'pass', file: 'test/a.test.js' },
    { id: 'test/b.test.js > adds zero', status: 'fail', file: 'test/b.test.js' },
    { id: 'test/b.test.js > later', status: 'todo', file: 'test/b.test.js' },
  ],
};

/**
 * A demand check that stands for a test runner: it hands in `BASELINE` at the baseline (where the channel
 * has no baseline yet), and on a candidate reports what it was given to compare with, passing with the
 * codes `codes` names.
 */
function inventoryCheck(seen: (TestInventory | undefined)[], codes: readonly string[] = []): Check {
  const check = { name: 'tests', stage: 'fast' as const, tier: 'demand' as const, required: true };
  return {
    ...check,
    run: async ({ inventory, attempt }: CheckContext) => {
      const baseline = inventory?.baseline(check.name);
      if (attempt === 0) {
        assert.equal(baseline, undefined, 'the baseline has no baseline to compare with');
        inventory?.record(check.name, BASELINE);
        return [finding(check, 'fail', ['test.failed:adds zero'], 'adds zero failed')];
      }
      seen.push(baseline);
      return [finding(check, 'pass', codes, '2 passed')];
    },
  };
}

function mission(id: string) {
  return defineMission({ id, goal: 'make the tests pass', budgets: { maxAttempts: 2 } });
}

describe('test inventories in the loop', () => {
  it('records the baseline inventory, gives it to every candidate check and shows it in ledger show', async () => {
    const ledger = await SqliteLedger.open({ database: path.join(dir, 'inventory.db'), synchronous: 'off' });
    const seen: (TestInventory | undefined)[] = [];
    const result = await runMission({
      mission: mission('inventory'),
      ledger,
      checks: [inventoryCheck(seen)],
      proposer: functionProposer(() => ({ value: 'fixed' })),
    });
    assert.equal(result.outcome, 'complete');
    assert.equal(result.verification, 'verified');
    assert.deepEqual(seen, [BASELINE]);
    const records = await ledger.records(result.runId);
    assert.deepEqual(dataOf(records, 'baseline').inventories, { tests: BASELINE });
    await ledger.close();
    const shown = await redline(['ledger', 'show', result.runId, '--ledger', path.join(dir, 'inventory.db')]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /baseline:\n {4}tests: 3 tests in 2 files \(1 pass, 1 fail, 0 skip, 1 todo\)/);
  });

  it('caps a run whose red line passed only by a stated removal at sampled, and says what went missing', async () => {
    const ledger = await SqliteLedger.open({ database: path.join(dir, 'allowed.db'), synchronous: 'off' });
    const seen: (TestInventory | undefined)[] = [];
    const result = await runMission({
      mission: mission('allowed'),
      ledger,
      checks: [inventoryCheck(seen, [`${ALLOWED_MISSING_CODE}:test/b.test.js > adds zero`])],
      proposer: functionProposer(() => ({ value: 'fixed' })),
    });
    assert.equal(result.outcome, 'complete');
    assert.equal(result.verification, 'sampled');
    const seal = dataOf(await ledger.records(result.runId), 'run.sealed');
    assert.equal(seal.verification, 'sampled');
    assert.match(
      describeRun(result, 'ledger'),
      /red line\s+1 baseline test went missing as allowMissing allows: test\/b\.test\.js > adds zero/,
    );
    assert.deepEqual(runSummary(result)['allowedMissing'], ['test/b.test.js > adds zero']);
    await ledger.close();
  });

  it('a run resumed after its baseline still requires the baseline inventory it recorded', async () => {
    const ws = await tempWorkspace({
      'ws/package.json': '{"type":"module"}\n',
      'ws/src/add.js': 'export const add = (a, b) => (b === 0 ? 0 : a + b);\n',
      'ws/test/add.test.js':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => assert.equal(add(1, 2), 3));\ntest('adds zero', () => assert.equal(add(1, 0), 1));\n",
      'attempts.json': JSON.stringify([{ files: { 'src/add.js': 'process.exit(0);\n' } }]),
    });
    try {
      const resumable = defineMission(
        {
          id: 'resumed-inventory',
          goal: 'make adds zero pass',
          workspace: 'ws',
          scope: ['src/**'],
          budgets: { maxAttempts: 1 },
          checks: [{ name: 'tests', kind: 'test-runner', format: 'tap', command: 'node --test --test-reporter=tap test/' }],
          proposer: { kind: 'replay', file: 'attempts.json' },
        },
        { baseDir: ws },
      );
      const ledger = await SqliteLedger.open({ database: path.join(ws, 'resume.db'), synchronous: 'off' });
      // Killed right after the baseline record (run.started, baseline): the decision and the attempt are left to do.
      await assert.rejects(runMission({ mission: resumable, ledger: dyingAfter(ledger, 2), scratchDir: ws }), /process killed/);
      const [recovery] = await recoverRuns({ ledger, scratchDir: ws });
      assert.equal(recovery?.action, 'resumed');
      assert.equal(recovery?.result?.verification, 'unverified');
      const codes = recovery?.result?.findings.flatMap((item) => item.reasonCodes) ?? [];
      assert.ok(codes.includes('test.missing:adds') && codes.includes('test.missing:adds zero'), codes.join(', '));
      await ledger.close();
    } finally {
      await rm(ws, { recursive: true, force: true });
    }
  });
});
