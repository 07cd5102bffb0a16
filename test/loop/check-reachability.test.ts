import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkReachability } from '../../src/loop/check-reachability.js';
import { defineMission } from '../../src/mission/mission.js';
import { tempWorkspace } from '../helpers/workspace.js';

const TEST = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { add } from '../src/add.js';",
  "test('adds', () => assert.equal(add(1, 2), 3));",
  "test('adds zero', () => assert.equal(add(0, 0), 0));",
  '',
].join('\n');
const BUGGY = { 'src/add.js': 'export const add = (a, b) => a - b;\n', 'test/add.test.js': TEST, 'package.json': '{"type":"module"}' };
const FIXED = { ...BUGGY, 'src/add.js': 'export const add = (a, b) => a + b;\n' };
const tests = { name: 'tests', kind: 'test-runner', format: 'tap', command: 'node --test-reporter=tap test/add.test.js' };

const missionOf = (workspace: string, check: Record<string, unknown> = tests, fields: Record<string, unknown> = {}) =>
  defineMission({ id: 'add', goal: 'fix add', workspace, scope: ['src/**'], checks: [check], ...fields });

describe('checkReachability: a mission against a reference candidate', () => {
  it('reachable: the reference passes every required check, the baseline fails with specific reasons', async () => {
    const [workspace, reference] = [await tempWorkspace(BUGGY), await tempWorkspace({ ...FIXED, 'notes.txt': 'ignored' })];
    const report = await checkReachability({ mission: missionOf(workspace, tests, { ignore: ['notes.txt'] }), reference });
    assert.deepEqual(
      [report.status, report.reachable, report.tooBroad, report.weakFeedback, report.problems],
      ['reachable', true, false, [], []],
    );
    assert.deepEqual(report.candidate.footprint, ['src/add.js']);
    assert.ok(report.baseline.some((finding) => finding.reasonCodes.includes('test.failed:adds')));
  });

  it('unreachable: a reference that fails, or that changes what the scope forbids', async () => {
    const workspace = await tempWorkspace(BUGGY);
    const wrong = await checkReachability({ mission: missionOf(workspace), reference: await tempWorkspace(BUGGY) });
    assert.deepEqual([wrong.status, wrong.reachable, wrong.candidate.footprint], ['unreachable', false, []]);
    assert.match(wrong.problems.join('\n'), /required check tests does not pass on the reference \(fail: test\.failed:adds\)/);
    const outside = await checkReachability({
      mission: missionOf(workspace),
      reference: await tempWorkspace({ ...FIXED, 'test/add.test.js': "import { test } from 'node:test';\ntest('ok', () => {});\n" }),
    });
    assert.equal(outside.status, 'unreachable');
    assert.match(
      outside.problems.join('\n'),
      /required check scope does not pass on the reference \(fail: scope\.outside:test\/add\.test\.js\)/,
    );
  });

  it('too broad: the required demand checks pass on the unchanged baseline', async () => {
    const [workspace, reference] = [await tempWorkspace(FIXED), await tempWorkspace(FIXED)];
    const report = await checkReachability({ mission: missionOf(workspace), reference });
    assert.deepEqual([report.status, report.reachable, report.tooBroad], ['too_broad', true, true]);
  });

  it('weak feedback: a required check that fails on the baseline with only a generic reason code', async () => {
    const [workspace, reference] = [await tempWorkspace(BUGGY), await tempWorkspace(FIXED)];
    const check = { name: 'tests', kind: 'command', tier: 'demand', command: 'node test/add.test.js > /dev/null' };
    const report = await checkReachability({ mission: missionOf(workspace, check), reference });
    assert.deepEqual([report.status, report.reachable, report.weakFeedback], ['weak_feedback', true, ['tests']]);
    assert.match(report.problems.join('\n'), /required check tests fails on the baseline without a specific reason code/);
  });

  it('environment: a required check that cannot run on the baseline', async () => {
    const [workspace, reference] = [await tempWorkspace(BUGGY), await tempWorkspace(FIXED)];
    const report = await checkReachability({
      mission: missionOf(workspace, { ...tests, command: 'redline-no-such-test-binary' }),
      reference,
    });
    assert.equal(report.status, 'environment');
    assert.match(report.problems[0] ?? '', /required check tests could not run on the baseline \(process\.not_found\)/);
  });

  it('refuses a mission without a workspace and a reference that is not a directory', async () => {
    await assert.rejects(
      checkReachability({ mission: defineMission({ id: 'v', goal: 'g' }), reference: '.' }),
      /Expected a mission with a workspace, got mission v without one/,
    );
    await assert.rejects(
      checkReachability({ mission: missionOf(await tempWorkspace(BUGGY)), reference: '/no/such/dir' }),
      /Expected the reference to be a directory/,
    );
  });
});
