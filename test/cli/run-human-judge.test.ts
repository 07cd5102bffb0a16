import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ReviewQueue } from '../../src/review/review-queue.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { redline, ROOT } from './redline.js';
import { tempDir } from '../helpers/workspace.js';

let dir: string;
before(async () => {
  dir = await tempDir('redline-cli-human-');
  await writeFile(
    path.join(dir, 'propose.mjs'),
    `process.stdin.resume().on('end', () => process.stdout.write(JSON.stringify({ value: { answer: 42 } })));`,
  );
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A mission without checks whose only judge is a person: every attempt waits for a verdict. */
async function missionFile(name: string, judge: string): Promise<string> {
  const file = path.join(dir, `${name}.yaml`);
  await writeFile(
    file,
    [
      `id: ${name}`,
      'goal: Answer the question',
      'budgets: { maxAttempts: 2 }',
      `proposer: { kind: command, command: ["${process.execPath}", "propose.mjs"] }`,
      `judge: ${judge}`,
    ].join('\n'),
  );
  return file;
}

/** The built CLI in a child process, not waited for: the test reviews while it runs. */
function startRedline(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/redline.js'), ...args], { cwd: dir });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function waitForItem(queue: ReviewQueue): Promise<string> {
  for (let tries = 0; tries < 1_000; tries += 1) {
    const [entry] = await queue.list();
    if (entry !== undefined) return entry.item.id;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no review item appeared');
}

describe('redline run with judge: human', () => {
  it('waits for the verdict a reviewer gives in another process through `redline review verdict`, and exits 0 complete', async () => {
    const ledger = path.join(dir, 'approve.db');
    const file = await missionFile('human-approve', '{ kind: human, timeout: 1m, pollInterval: 20ms }');
    const run = startRedline(['run', file, '--json', '--ledger', ledger]);
    const queue = await SqliteReviewQueue.open({ database: ledger });
    try {
      const itemId = await waitForItem(queue);
      const verdict = await redline([
        'review',
        'verdict',
        itemId,
        '--reviewer',
        'alice',
        '--approve',
        '--label',
        'unclear',
        '--ledger',
        ledger,
      ]);
      assert.equal(verdict.code, 0, verdict.stderr);
      const { code, stdout, stderr } = await run;
      assert.equal(code, 0, stderr);
      const summary = JSON.parse(stdout) as { outcome: string; stopReason: string; runId: string };
      assert.deepEqual([summary.outcome, summary.stopReason], ['complete', 'human_approved']);
      // The ledger records the decision as the human's.
      const shownRun = await redline(['ledger', 'show', summary.runId, '--ledger', ledger]);
      assert.match(shownRun.stdout, new RegExp(`review item ${itemId} approved by alice \\(unclear\\)`));
      assert.match(stderr, new RegExp(`attempt 1: waiting for a verdict on review item ${itemId} until `));
      assert.equal((await queue.get(itemId))?.item.runId, `${summary.runId}#attempt-1`);
      const shown = await redline(['review', 'show', itemId, '--ledger', ledger]);
      assert.match(shown.stdout, new RegExp(`raw trace: redline ledger show ${summary.runId} --ledger`));
    } finally {
      await queue.close();
    }
  });

  it('blocks with human_timeout, exit 1, when no verdict comes in time', async () => {
    const ledger = path.join(dir, 'timeout.db');
    const { code, stdout } = await redline([
      'run',
      await missionFile('human-timeout', '{ kind: human, timeout: 200ms, pollInterval: 20ms }'),
      '--json',
      '--ledger',
      ledger,
    ]);
    assert.equal(code, 1);
    assert.deepEqual((({ outcome, stopReason }) => [outcome, stopReason])(JSON.parse(stdout) as { outcome: string; stopReason: string }), [
      'blocked',
      'human_timeout',
    ]);
  });
});
