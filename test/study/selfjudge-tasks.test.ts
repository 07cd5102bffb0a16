import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildChecks } from '../../src/roles/build-checks.js';
import { finding, type Check } from '../../src/core/check.js';
import type { Finding } from '../../src/core/finding.js';
import { StudyOptionError } from '../../src/study/study-option-error.js';
import { trialMission, writeTaskWorkspace } from '../../src/study/selfjudge/task-mission.js';
import { BOUNDARY_TASKS, PUBLISHED_TASKS, parseTaskFile, type CodeTask } from '../../src/study/selfjudge/tasks.js';
import { TruthOracle } from '../../src/study/selfjudge/truth.js';
import { readyPython3 } from '../helpers/python.js';
import { FIXES } from './selfjudge-boundary-fixes.js';
import { CODE } from './selfjudge-scripted-models.js';
import { tempDir } from '../helpers/workspace.js';

const skip = readyPython3();

/** The tests' verdict on `files` written over the task's workspace. */
async function verdict(task: CodeTask, files: Record<string, string>): Promise<string> {
  const root = await tempDir('redline-tasks-');
  try {
    const workspace = await writeTaskWorkspace(task, root);
    const mission = trialMission({ task: { kind: 'code', task }, workspace, condition: 'redline', studyId: 't', trial: 1, maxAttempts: 1 });
    const oracle = new TruthOracle({ checks: await buildChecks(mission), mission, scratch: path.join(root, 'truth') });
    const candidate = { files, footprint: Object.keys(files), hash: JSON.stringify(files) };
    return await oracle.verdict(candidate, 1, new AbortController().signal);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

describe('bundled task sets', { skip }, () => {
  it('the published tasks fail without code, pass with right code and fail with wrong code', async () => {
    for (const task of PUBLISHED_TASKS) {
      assert.equal(await verdict(task, {}), 'fail', task.id);
      assert.equal(await verdict(task, { 'solution.py': CODE[task.id]!.right }), 'pass', task.id);
      assert.equal(await verdict(task, { 'solution.py': CODE[task.id]!.wrong }), 'fail', task.id);
    }
  });

  it('the repair boundary has at least 5 tasks per class; each seeded task fails and its fix passes', async () => {
    for (const taskClass of ['syntax', 'logic']) assert.ok(BOUNDARY_TASKS.filter((task) => task.taskClass === taskClass).length >= 5);
    for (const task of BOUNDARY_TASKS) {
      assert.equal(await verdict(task, {}), 'fail', `${task.id} as seeded`);
      assert.equal(await verdict(task, { 'solution.py': FIXES[task.id]! }), 'pass', `${task.id} fixed`);
    }
  });
});

describe('TruthOracle', () => {
  it("takes the loop's pass or fail of its very checks as the truth, and runs the checks for anything less", async () => {
    const root = await tempDir('redline-oracle-');
    try {
      const task = PUBLISHED_TASKS[0] as CodeTask;
      const workspace = await writeTaskWorkspace(task, root);
      const mission = trialMission({
        task: { kind: 'code', task },
        workspace,
        condition: 'redline',
        studyId: 't',
        trial: 1,
        maxAttempts: 1,
      });
      // A check that fails whatever it sees and counts its runs: a 'pass' verdict can only come from the recorded findings.
      const verdict = async (recorded: readonly Finding[], { ranInLoop = true, tier = 'demand' as Check['tier'] } = {}) => {
        let runs = 0;
        const check: Check = {
          name: 'tests',
          stage: 'fast',
          tier,
          required: true,
          run: async () => {
            runs += 1;
            return [finding(check, 'fail', ['output.mismatch'], 'wrong')];
          },
        };
        const oracle = new TruthOracle({ checks: [check], mission, scratch: path.join(root, 'truth'), ranInLoop });
        const candidate = { files: { 'solution.py': 'x = 1\n' }, footprint: ['solution.py'], hash: 'h' };
        return { truth: await oracle.verdict(candidate, 1, new AbortController().signal, recorded), runs };
      };
      const tests = (status: Finding['status']) =>
        ({ check: 'tests', stage: 'fast', tier: 'demand', status, reasonCodes: [], message: '' }) as const;
      assert.deepEqual(await verdict([tests('pass')]), { truth: 'pass', runs: 0 });
      assert.deepEqual(await verdict([tests('fail')]), { truth: 'fail', runs: 0 });
      // Not decided by the loop, or not the loop's own checks: the oracle runs them.
      assert.deepEqual(await verdict([tests('skipped')]), { truth: 'fail', runs: 1 });
      assert.deepEqual(await verdict([tests('error')]), { truth: 'fail', runs: 1 });
      assert.deepEqual(await verdict([{ ...tests('pass'), check: 'other' }]), { truth: 'fail', runs: 1 });
      assert.deepEqual(await verdict([tests('pass')], { ranInLoop: false }), { truth: 'fail', runs: 1 });
      assert.deepEqual(await verdict([tests('pass')], { tier: 'semantic' }), { truth: 'fail', runs: 1 });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('parseTaskFile', () => {
  it('reads the published format', () => {
    assert.deepEqual(parseTaskFile({ tasks: [{ id: 'sq', desc: 'square(n)', test_stmt: 'print(square(3))', expected: '9' }] }), [
      { id: 'sq', desc: 'square(n)', testStmt: 'print(square(3))', expected: '9' },
    ]);
  });

  it('names the first bad field', () => {
    assert.throws(
      () => parseTaskFile({ tasks: [{ id: 'sq', desc: 'd', expected: '9' }] }),
      (error: unknown) => {
        assert.ok(error instanceof StudyOptionError);
        assert.equal(error.option, 'taskFile');
        assert.match(error.message, /tasks\[0\]\.test_stmt/);
        return true;
      },
    );
    assert.throws(() => parseTaskFile({ task: [] }), StudyOptionError);
    assert.throws(() => parseTaskFile({ tasks: [{ id: 'a/b', desc: 'd', test_stmt: 't', expected: '' }] }), /letters, digits/);
  });
});
