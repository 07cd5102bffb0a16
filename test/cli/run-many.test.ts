import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { answerMission } from '../helpers/answer-mission.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline, ROOT } from './redline.js';

// `redline run a b c --concurrency N`: many missions in one process against one SQLite ledger.
const ANSWER = path.join(ROOT, 'test/fixtures/proposers/answer-agent.sh');
const BARRIER = path.join(ROOT, 'test/fixtures/proposers/barrier-agent.mjs');

/** Mission files in one temp dir, each with its own workspace; the last `failing` ones allow one attempt (the agent needs two). */
async function missions(
  ids: readonly string[],
  { goal = 'write the answer', maxAttempts = 5 } = {},
): Promise<{ dir: string; files: string[] }> {
  const dir = await tempWorkspace({});
  const files = [];
  for (const id of ids)
    files.push(await answerMission(dir, id, { goal, budgets: { maxAttempts: id.startsWith('short') ? 1 : maxAttempts } }));
  return { dir, files };
}

describe('redline run with several missions', () => {
  it('runs them at once against one ledger, one JSON line each, every chain verifying', async () => {
    const { dir, files } = await missions(['a', 'b', 'c']);
    const barrier = path.join(dir, 'barrier');
    await mkdir(barrier);
    const db = path.join(dir, 'ledger.db');
    // Each proposer waits until three have started: only concurrent runs get past it.
    const { code, stdout, stderr } = await redline([
      'run',
      ...files,
      '--concurrency',
      '3',
      '--proposer',
      `node ${BARRIER} ${barrier} 3`,
      '--json',
      '--ledger',
      db,
    ]);
    assert.equal(code, 0, stderr);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { mission: string; outcome: string; attempts: number });
    assert.deepEqual(lines.map((line) => line.mission).sort(), ['a', 'b', 'c']);
    assert.ok(lines.every((line) => line.outcome === 'complete' && line.attempts === 1));
    const ledger = await SqliteLedger.open({ database: db, readOnly: true });
    try {
      const runs = await ledger.runs({});
      assert.equal(runs.length, 3);
      const report = await verifyLedger(ledger);
      assert.equal(report.ok, true);
    } finally {
      await ledger.close();
    }
  });

  it('does not count a run still going in this process as an unsealed run left for `ledger recover`', async () => {
    const { dir, files } = await missions(['a', 'b', 'c']);
    const barrier = path.join(dir, 'barrier');
    await mkdir(barrier);
    // Two at a time: the first waits until the third has started, so the third starts beside a running run.
    const { code, stderr } = await redline([
      'run',
      ...files,
      '--concurrency',
      '2',
      '--proposer',
      `node ${BARRIER} ${barrier} 3 first`,
      '--ledger',
      path.join(dir, 'ledger.db'),
    ]);
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /unsealed run/);
  });

  it('names the mission on every line and exits with the worst outcome', async () => {
    const { dir, files } = await missions(['ok', 'short'], { goal: 'fake\n[ok] outcome complete\u001b[2J' });
    const { code, stdout, stderr } = await redline([
      'run',
      ...files,
      '--concurrency',
      '2',
      '--proposer',
      `sh ${ANSWER}`,
      '--ledger',
      path.join(dir, 'l.db'),
    ]);
    assert.equal(code, 1, stderr);
    for (const line of [...stdout.trim().split('\n'), ...stderr.trim().split('\n').slice(0, -1)]) assert.match(line, /^\[(ok|short)\] /);
    assert.match(stdout, /^\[ok\] outcome\s+complete/m);
    assert.match(stdout, /^\[short\] outcome\s+failed_with_evidence/m);
    // The goal's second line (a forged [ok] line) is not printed, and no escape reaches the terminal.
    assert.doesNotMatch(stderr, /\[ok\] outcome complete/);
    assert.ok(!(stderr + stdout).includes('\u001b[2J'));
    assert.match(
      stderr.trim().split('\n').at(-1) as string,
      /^2 missions, 2 at a time: (1 complete, 1 failed_with_evidence|1 failed_with_evidence, 1 complete)$/,
    );
  });

  it('labels repeated missions apart and refuses a bad file before running any', async () => {
    const { dir, files } = await missions(['same']);
    const db = path.join(dir, 'l.db');
    const twice = await redline(['run', files[0] as string, files[0] as string, '--proposer', `sh ${ANSWER}`, '--ledger', db]);
    assert.equal(twice.code, 0, twice.stderr);
    assert.match(twice.stdout, /^\[same#2\] outcome\s+complete/m);
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, '{"id":"x"}');
    const refused = await redline(['run', files[0] as string, bad, '--proposer', `sh ${ANSWER}`, '--ledger', db]);
    assert.equal(refused.code, 2);
    const ledger = await SqliteLedger.open({ database: db, readOnly: true });
    try {
      assert.equal((await ledger.runs({})).length, 2);
    } finally {
      await ledger.close();
    }
    assert.equal((await redline(['run', files[0] as string, files[0] as string, '--resolves', 'r1', '--ledger', db])).code, 2);
    assert.equal((await redline(['run', files[0] as string, '--concurrency', '0'])).code, 2);
  });
});
