import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline, spawnRedline } from './redline.js';
import { dataOf } from '../helpers/records.js';

// `redline check --reference` in-process; a real process for what a shell sees: `redline run` of a mission
// whose test binary is missing, and `redline check`'s exit codes.
for (const name of ['REDLINE_LEDGER', 'NO_COLOR']) delete process.env[name];
process.env.FORCE_COLOR = '0';

const TEST =
  "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => assert.equal(add(1, 2), 3));\n";
const BUGGY = {
  'ws/src/add.js': 'export const add = (a, b) => a - b;\n',
  'ws/test/add.test.js': TEST,
  'ws/package.json': '{"type":"module"}',
};

/** A mission file over `ws/` with one test-runner check running `command`, and a reference tree. */
async function missionFile(command: string): Promise<{ file: string; dir: string; reference: string }> {
  const dir = await tempWorkspace({
    ...BUGGY,
    'ref/src/add.js': 'export const add = (a, b) => a + b;\n',
    'ref/test/add.test.js': TEST,
    'ref/package.json': '{"type":"module"}',
  });
  const file = path.join(dir, 'mission.json');
  const checks = [{ name: 'tests', kind: 'test-runner', format: 'tap', command }];
  await writeFile(
    file,
    JSON.stringify({
      id: 'add',
      goal: 'fix add',
      workspace: 'ws',
      scope: ['src/**'],
      checks,
      proposer: { kind: 'command', command: 'echo {}' },
    }),
  );
  return { file, dir, reference: path.join(dir, 'ref') };
}

describe('redline check --reference', () => {
  it('says reachable (exit 0) or what is wrong (exit 1), as text and --json; a missing --reference is a usage error', async () => {
    const good = await missionFile('node --test --test-reporter=tap test/');
    const ok = await redline(['check', good.file, '--reference', good.reference]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(
      ok.stdout,
      /^mission add: reachable: every required check passes on the reference.*\nreference {5}1 changed path\(s\): src\/add\.js\n$/,
    );
    const wrong = await redline(['check', good.file, '--reference', path.join(good.dir, 'ws'), '--json']);
    assert.equal(wrong.code, 1);
    const report = JSON.parse(wrong.stdout) as { status: string; reachable: boolean; problems: string[] };
    assert.deepEqual([report.status, report.reachable], ['unreachable', false]);
    assert.equal((await redline(['check', good.file])).code, 2);
    assert.match(
      (await redline(['check', '--help'])).stdout,
      /--reference <dir>[\s\S]*Exit codes: 0 reachable, 1 any other status, 2 usage/,
    );
  });

  it('exits 1 for a mission whose test binary is missing, in a real process', async () => {
    const broken = await missionFile('redline-no-such-test-binary --reporter tap');
    const result = spawnRedline(['check', broken.file, '--reference', broken.reference]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^mission add: environment: a required check cannot run on the baseline\n[\s\S]*process\.not_found/);
  });
});

describe('redline run: a missing test binary', () => {
  it('seals blocked / environment with zero proposals, in a real process, and says which check and error', async () => {
    const { file, dir } = await missionFile('redline-no-such-test-binary --reporter tap');
    const ledger = path.join(dir, 'redline.db');
    const json = spawnRedline(['run', file, '--json', '--ledger', ledger]);
    assert.equal(json.code, 1, json.stderr);
    const summary = JSON.parse(json.stdout) as { runId: string; outcome: string; stopReason: string; attempts: number };
    assert.deepEqual([summary.outcome, summary.stopReason, summary.attempts], ['blocked', 'environment', 0]);
    const opened = await openLedger(ledger);
    const records = await opened.records(summary.runId);
    await opened.close();
    assert.deepEqual(
      records.map((record) => record.type),
      ['run.started', 'baseline', 'decision', 'run.sealed'],
    );
    assert.match(
      String(dataOf(records, 'run.sealed').detail),
      /required check tests could not run on the baseline \(process\.not_found\).*redline-no-such-test-binary/s,
    );
    const text = spawnRedline(['run', file, '--ledger', ledger]);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /blocked/);
    assert.match(text.stdout, /environment/);
    assert.doesNotMatch(text.stderr, /attempt 1/);
  });
});
