import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempWorkspace } from '../helpers/workspace.js';

// Drives the built CLI (`npm test` builds first) as a user would.
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/redline.js');
const AGENT = path.join(ROOT, 'test/fixtures/proposers/answer-agent.mjs');

function redline(args: string[], cwd = ROOT) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function answerMission(extra: Record<string, unknown> = {}): Promise<string> {
  const dir = await tempWorkspace({ 'ws/src/answer.txt': '0\n' });
  const file = path.join(dir, 'mission.json');
  await writeFile(file, JSON.stringify({ id: 'answer', goal: 'write the answer', workspace: 'ws', scope: ['src/**'], checks: [{ name: 'answer', kind: 'expected-output', command: 'cat src/answer.txt', expected: '42' }], ...extra }));
  return file;
}

describe('redline CLI', () => {
  it('runs a mission with any program speaking the protocol and prints one JSON line', async () => {
    const file = await answerMission();
    const { code, stdout } = redline(['run', file, '--proposer', `node ${AGENT}`, '--json']);
    assert.equal(code, 0);
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const summary = JSON.parse(lines[0] as string);
    assert.deepEqual(Object.keys(summary), ['runId', 'mission', 'outcome', 'verification', 'stopReason', 'attempts']);
    assert.deepEqual([summary.mission, summary.outcome, summary.verification, summary.stopReason, summary.attempts], ['answer', 'complete', 'verified', 'demand_passed', 2]);
  });

  it('prints a readable table with the evidence file for people', async () => {
    const file = await answerMission();
    const { code, stdout, stderr } = redline(['run', file, '--proposer', `node ${AGENT}`]);
    assert.equal(code, 0);
    assert.match(stderr, /attempt 1: 1 failing: output\.mismatch/);
    assert.match(stdout, /outcome\s+complete/);
    const show = /evidence\s+(redline ledger show .*)$/m.exec(stdout)?.[1];
    assert.ok(show !== undefined, stdout);
    const story = redline(show.split(' ').slice(1));
    assert.equal(story.code, 0);
    assert.match(story.stdout, /attempt 1: changes src\/answer\.txt/);
    assert.match(story.stdout, /sealed complete \/ verified \/ demand_passed after 2 attempt/);
  });

  it('exits 1 for a failed run', async () => {
    const file = await answerMission({ budgets: { maxAttempts: 1 } });
    const { code, stdout } = redline(['run', file, '--proposer', `node ${AGENT}`, '--json']);
    assert.equal(code, 1);
    assert.equal(JSON.parse(stdout).outcome, 'failed_with_evidence');
  });

  it('exits 2 with the path, expectation and finding of a bad mission file, and no stack trace', async () => {
    const dir = await tempWorkspace({ 'mission.yaml': 'id: x\ngoal: g\nbudgets:\n  maxAttempts: many\n' });
    const { code, stderr } = redline(['run', path.join(dir, 'mission.yaml'), '--proposer', 'true']);
    assert.equal(code, 2);
    assert.match(stderr, /budgets\.maxAttempts: expected number, got string "many"/);
    assert.doesNotMatch(stderr, /\n\s+at /);
  });

  it('exits 2 for usage errors and when no proposer is given', async () => {
    assert.equal(redline(['run']).code, 2);
    assert.equal(redline(['run', 'x.yaml', '--no-such-flag']).code, 2);
    const { code, stderr } = redline(['run', await answerMission()]);
    assert.equal(code, 2);
    assert.match(stderr, /no proposer/);
  });

  it('has --help for every command', () => {
    for (const args of [['--help'], ['run', '--help'], ['demo', '--help'], ['ledger', '--help'], ['ledger', 'verify', '--help'], ['replay', '--help'], ['admit', '--help']]) {
      const { code, stdout } = redline(args);
      assert.equal(code, 0);
      assert.match(stdout, /Usage: redline/);
    }
  });

  it('demo runs every bundled mission as documented and exits 0', async () => {
    const dir = await tempWorkspace({});
    const { code, stdout, stderr } = redline(['demo', '--json', '--ledger', path.join(dir, 'demo.db')]);
    assert.equal(code, 0, stderr);
    const runs = stdout.trim().split('\n').map((line) => JSON.parse(line) as { outcome: string; verification: string });
    assert.deepEqual(new Set(runs.map((run) => run.outcome)), new Set(['complete', 'complete_noop', 'blocked', 'failed_with_evidence']));
    assert.deepEqual(new Set(runs.map((run) => run.verification)), new Set(['verified', 'sampled', 'unverified']));
  });
});
