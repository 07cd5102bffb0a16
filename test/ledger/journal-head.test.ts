import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { headCommand, verifyCommand } from '../../src/cli/ledger-command.js';
import type { Output } from '../../src/cli/run-command.js';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { openReviewQueue } from '../../src/review/open-review-queue.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';
import { reviewedLedger, rewriteVerdict } from './reviewed-ledger.js';

function capture(): Output & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, print: (line) => void out.push(line), progress: (line) => void err.push(line) };
}

describe('redline ledger head covers the review journal', () => {
  it('verify --against fails once a journal verdict is rewritten with every later hash and the state row recomputed', async () => {
    const dir = await tempWorkspace({});
    try {
      const file = path.join(dir, 'redline.db');
      await reviewedLedger(file);
      const head = capture();
      assert.equal(await headCommand({ ledger: file }, head), 0);
      const digest = head.out[0] ?? '';
      const [, entries] = /^1:(\d+):[0-9a-f]{64}$/.exec(digest) ?? [];
      assert.ok(entries !== undefined && Number(entries) > 0, digest);
      assert.match(
        head.err[0] ?? '',
        new RegExp(`^covers the first 1 of 1 run\\(s\\) in .*, in start order, and the ${entries} review journal entries$`),
      );

      const forged = path.join(dir, 'forged.db');
      await copyFile(file, forged);
      rewriteVerdict(forged);
      // The journal's chain and tables agree again: only the head taken before tells.
      const plain = capture();
      assert.equal(await verifyCommand({ ledger: forged }, plain), 0, plain.out.join('\n'));
      const against = capture();
      assert.equal(await verifyCommand({ ledger: forged, against: digest }, against), 1);
      assert.match(
        against.out.join('\n'),
        new RegExp(
          `BROKEN ledger head ${digest}: the first 1 run\\(s\\) and ${entries} review journal entries do not match the digest: .*a journal entry among them changed`,
        ),
      );

      // A runs-only digest, as heads were printed before they covered the journal, still checks the runs, and says what it leaves out.
      const runs = await SqliteLedger.open({ database: forged, readOnly: true });
      const legacy = await runs.runs().finally(() => runs.close());
      const lines = legacy.map((run) => `${canonicalJson([run.runId, run.lastHash])}\n`).join('');
      const runsOnly = `1:${createHash('sha256').update(lines).digest('hex')}`;
      const old = capture();
      assert.equal(await verifyCommand({ ledger: forged, against: runsOnly }, old), 0, old.out.join('\n'));
      assert.match(
        old.out.join('\n'),
        /the first 1 run\(s\) match the digest; 0 run\(s\) were added since \(a runs-only digest: the review journal is not covered\)/,
      );

      // The ledger as it was, with entries appended since: the digest holds.
      const queue = await openReviewQueue(file);
      try {
        const third = await queue.enqueue(brief('run-3'));
        await queue.claim('carol');
        await queue.verdict(third.item?.id ?? '', { reviewer: 'carol', decision: 'approve', label: 'code_error' });
      } finally {
        await queue.close();
      }
      const unchanged = capture();
      assert.equal(await verifyCommand({ ledger: file, against: digest }, unchanged), 0, unchanged.out.join('\n'));
      assert.match(
        unchanged.out.join('\n'),
        new RegExp(
          `ledger head matches ${digest}: the first 1 run\\(s\\) and ${entries} review journal entries match the digest; 0 run\\(s\\) and 1 journal entries were added since`,
        ),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
