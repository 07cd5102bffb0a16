import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { EXPECTED_FIX, recordFixture, rounded } from '../analysis/shadow-runs.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline, spawnRedline } from './redline.js';

/** A SQLite ledger file holding the fixture's runs (test/analysis/shadow-runs.ts). */
async function fixtureLedger(): Promise<string> {
  const dir = await tempWorkspace({});
  const db = path.join(dir, 'l.db');
  const ledger = await SqliteLedger.open({ database: db, synchronous: 'off' });
  await recordFixture(ledger);
  await ledger.close();
  return db;
}

describe('redline report stop-quality', () => {
  it('prints the numbers worked out by hand for the fixture, as one JSON line and as tables', async () => {
    const db = await fixtureLedger();
    const json = await redline(['report', 'stop-quality', '--task-type', 'fix', '--json', '--ledger', db]);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(rounded(JSON.parse(json.stdout)), rounded(EXPECTED_FIX));

    const text = await redline(['report', 'stop-quality', '--task-type', 'fix', '--ledger', db]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^6 sealed run\(s\) in .* of task type fix$/m);
    assert.match(text.stdout, /^observed reach: 4\/6 \(66\.7%\)/m);
    assert.match(text.stdout, /^true reach: 3\/5 \(60\.0%\) .* 1 false stop\(s\), 1 missed, 1 shadow error\(s\)$/m);
    assert.match(text.stdout, /^threshold +3 +3\/3 \(100\.0%\) +1\/2 \(50\.0%\) +1 +0 +1$/m);
    assert.match(text.stdout, /^confirm\(2, 0\.8\) +2 +1\/2 \(50\.0%\) +1\/2 \(50\.0%\) +0 +0 +0$/m);
    assert.match(text.stdout, /noiseAware: \{ bar: <bar>, confidence: <confidence>, noise: 0\.0283 \}/);
  });

  it('takes --since, and refuses a date it cannot read with exit 2', async () => {
    const db = await fixtureLedger();
    const later = await redline(['report', 'stop-quality', '--since', '2026-11-05', '--json', '--ledger', db]);
    assert.equal(later.code, 0, later.stderr);
    // R5, R6 (task type fix) and R7 (other) started on 5, 6 and 7 November.
    assert.equal((JSON.parse(later.stdout) as { all: { runs: number } }).all.runs, 3);
    const bad = await redline(['report', 'stop-quality', '--since', 'last tuesday', '--ledger', db]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'redline: Expected --since to be a date such as 2026-11-23, got "last tuesday"\n');
  });

  it('puts true reach next to observed reach in replay when the runs hold shadow verdicts', async () => {
    const db = await fixtureLedger();
    const policy = path.join(path.dirname(db), 'policy.json');
    await writeFile(policy, JSON.stringify({ name: 'confirm-2', guards: [{ confirm: { k: 2, bar: 0.8 } }] }));
    const text = await redline(['replay', '--policy', policy, '--task-type', 'fix', '--ledger', db]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /true reach +recorded true reach$/m);
    assert.match(text.stdout, /^confirm-2 .* 2\/3 \(66\.7%\) +3\/5 \(60\.0%\)$/m);
    const json = await redline(['replay', '--policy', policy, '--task-type', 'fix', '--json', '--ledger', db]);
    assert.deepEqual((JSON.parse(json.stdout) as { shadow: unknown }).shadow, {
      judged: 3,
      trueReached: 2,
      recordedJudged: 5,
      recordedTrueReached: 3,
    });
  });

  it('reports, in a real process, on runs that `redline run` recorded with a shadow check in the mission file', async () => {
    const dir = await tempWorkspace({ 'ws/answer.txt': 'zero\n' });
    await writeFile(path.join(dir, 'attempts.json'), JSON.stringify([{ files: { 'answer.txt': 'ok\n' } }]));
    const mission = path.join(dir, 'mission.yaml');
    await writeFile(
      mission,
      [
        'id: shadowed',
        'goal: answer ok',
        'taskType: answers',
        'workspace: ws',
        'proposer: { kind: replay, file: attempts.json }',
        'checks:',
        '  - { name: answer, kind: expected-output, command: cat answer.txt, expected: ok }',
        '  - { name: held-out, kind: expected-output, command: cat answer.txt, expected: "ok, twice", shadow: true }',
      ].join('\n'),
    );
    const db = path.join(dir, 'l.db');
    const run = await redline(['run', mission, '--json', '--ledger', db]);
    assert.equal(run.code, 0, run.stderr);
    // People see the held-out verdict in the run's summary.
    const again = await redline(['run', mission, '--ledger', db]);
    assert.match(again.stdout, /^shadow\s+fail \(held-out\) — held-out checks, not seen by the loop$/m);
    const shown = await redline(['ledger', 'show', (JSON.parse(run.stdout) as { runId: string }).runId, '--ledger', db]);
    assert.match(shown.stdout, /^ {2}shadow fail \(held-out checks, not seen by the loop\)\n {4}fail held-out: /m);

    const report = spawnRedline(['report', 'stop-quality', '--json', '--ledger', db]);
    assert.equal(report.code, 0, report.stderr);
    const { all } = JSON.parse(report.stdout) as { all: Record<string, number> };
    // The loop's red line held (complete, verified); the held-out one did not: a false stop.
    assert.deepEqual([all.runs, all.observedReached, all.judged, all.trueReached, all.falseReached], [2, 2, 2, 0, 2]);

    const missing = path.join(dir, 'none.db');
    const refused = spawnRedline(['report', 'stop-quality', '--ledger', missing]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^redline: no ledger at .*none\.db/);
    assert.doesNotMatch(refused.stderr, /\n +at /);
    assert.equal(existsSync(missing), false);
  });
});
