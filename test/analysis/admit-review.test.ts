import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { admitCommand } from '../../src/cli/admit-command.js';
import type { Output } from '../../src/cli/run-command.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { openReviewQueue, reviewQueueExists } from '../../src/review/open-review-queue.js';
import { redline, ROOT } from '../cli/redline.js';
import { tempDir } from '../helpers/workspace.js';
import { layOut, recordRun, type RecordedRun } from './admit-runs.js';

// Admission reads the run's review: a failed shadow check, or a sampled run no reviewer approved, is
// refused unless --force, and a forced admission is journaled in the ledger's review queue. Real SQLite.

async function setUp(run: RecordedRun): Promise<{ db: string; dir: string; runId: string }> {
  const root = await tempDir('redline-admit-review-');
  const db = path.join(root, 'ledger.db');
  const dir = path.join(root, 'dir');
  await layOut(dir, { 'a.txt': 'old\n' });
  const ledger = await openLedger(db);
  const runId = await recordRun(ledger, run);
  await ledger.close();
  return { db, dir, runId };
}

function recorder(): Output & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, print: (line) => void stdout.push(line), progress: (line) => void stderr.push(line) };
}

describe('redline admit and the run’s review', () => {
  it('refuses a run whose shadow check failed, naming why and how to override; --force admits it and journals the override', async () => {
    const { db, dir, runId } = await setUp({ files: { 'a.txt': 'new\n' }, baseline: { 'a.txt': 'old\n' }, shadow: 'fail' });
    const refused = recorder();
    assert.equal(await admitCommand(runId, { to: dir, ledger: db }, refused), 2);
    assert.deepEqual(refused.stderr, [
      `redline: run ${runId}: its shadow check failed (held-out): the held-out evidence says the candidate is wrong; nothing was written (--force admits it anyway, recorded in the review journal)`,
    ]);
    assert.equal(await readFile(path.join(dir, 'a.txt'), 'utf8'), 'old\n', 'nothing was written');
    assert.equal(await reviewQueueExists(db), false, 'a refusal creates no queue');

    const forced = recorder();
    assert.equal(await admitCommand(runId, { to: dir, ledger: db, force: true }, forced), 0);
    assert.deepEqual(forced.stdout, [
      `admitted run ${runId} into ${dir}: 1 written, 0 deleted, 0 unchanged`,
      '  forced:   its shadow check failed (held-out): the held-out evidence says the candidate is wrong',
      `  recorded as review journal entry 1 in ${db} (redline review journal)`,
      '  wrote     a.txt',
    ]);
    assert.equal(await readFile(path.join(dir, 'a.txt'), 'utf8'), 'new\n');
    const queue = await openReviewQueue(db);
    try {
      const entry = JSON.parse((await queue.journal()).at(-1)?.body ?? '{}') as { type: string; data: Record<string, unknown> };
      assert.equal(entry.type, 'admission');
      assert.deepEqual(
        [entry.data.runId, entry.data.mode, entry.data.into, entry.data.overrides],
        [
          runId,
          'files',
          dir,
          [
            {
              code: 'admit.shadow_failed',
              reason: 'its shadow check failed (held-out): the held-out evidence says the candidate is wrong',
            },
          ],
        ],
      );
      assert.equal(typeof entry.data.by, 'string');
      assert.equal((await queue.verifyJournal()).ok, true);
    } finally {
      await queue.close();
    }
    const journal = await redline(['review', 'journal', '--ledger', db]);
    assert.match(
      journal.stdout,
      new RegExp(`admission\\s+run ${runId} admitted with --force by \\S+ \\(files into ${dir}\\) over: its shadow check failed`),
    );
    assert.equal((await redline(['ledger', 'verify', '--ledger', db])).code, 0);
  });

  it('refuses a sampled run the sample never sent to review, and a --json refusal names the code', async () => {
    const { db, dir, runId } = await setUp({ files: { 'a.txt': 'new\n' }, baseline: { 'a.txt': 'old\n' }, verification: 'sampled' });
    const refused = recorder();
    assert.equal(await admitCommand(runId, { to: dir, ledger: db, json: true }, refused), 2);
    const line = JSON.parse(refused.stdout[0] as string) as { refused: string; message: string };
    assert.equal(line.refused, 'admit.not_approved');
    assert.match(
      line.message,
      /accepted on incomplete signals \(sampled\) and not approved by a reviewer: the sample did not send it to review; nothing was written \(--force/,
    );
    const forced = recorder();
    assert.equal(await admitCommand(runId, { to: dir, ledger: db, json: true, force: true }, forced), 0);
    const admission = JSON.parse(forced.stdout[0] as string) as { overridden: { code: string }[]; recorded: { seq: number } };
    assert.deepEqual([admission.overridden.map(({ code }) => code), admission.recorded.seq], [['admit.not_approved'], 1]);
  });

  it('admits a sampled run once a reviewer approves its review item, and refuses one awaiting a verdict or rejected', async () => {
    const root = await tempDir('redline-admit-review-');
    const db = path.join(root, 'redline.db');
    const dir = path.join(root, 'out');
    const mission = path.join(ROOT, 'examples/extraction-sampled/mission.yaml');
    const sampled = async (): Promise<{ runId: string; itemId: string }> => {
      const run = await redline(['run', mission, '--sample-rate', '1', '--json', '--ledger', db]);
      assert.equal(run.code, 0, run.stderr);
      const summary = JSON.parse(run.stdout) as { runId: string; review: { itemId: string } };
      return { runId: summary.runId, itemId: summary.review.itemId };
    };
    const approved = await sampled();
    const waiting = await redline(['admit', approved.runId, '--to', dir, '--ledger', db]);
    assert.equal(waiting.code, 2);
    assert.match(
      waiting.stderr,
      new RegExp(
        `not approved by a reviewer: review item ${approved.itemId} awaits a verdict \\(redline review verdict ${approved.itemId} --reviewer NAME --approve --label LABEL\\)`,
      ),
    );
    const verdict = ['review', 'verdict', approved.itemId, '--reviewer', 'ana', '--label', 'unclear', '--ledger', db];
    assert.equal((await redline([...verdict, '--approve'])).code, 0);
    const admitted = await redline(['admit', approved.runId, '--to', dir, '--ledger', db]);
    assert.equal(admitted.code, 0, admitted.stderr);
    assert.match(admitted.stdout, new RegExp(`\\n  approved by reviewer ana \\(review item ${approved.itemId}\\)\\n`));

    const rejected = await sampled();
    assert.equal(
      (await redline(['review', 'verdict', rejected.itemId, '--reviewer', 'ana', '--label', 'logic_error', '--reject', '--ledger', db]))
        .code,
      0,
    );
    const refused = await redline(['admit', rejected.runId, '--to', dir, '--ledger', db]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, new RegExp(`review item ${rejected.itemId} was rejected by ana \\(logic_error\\)`));
  });
});
