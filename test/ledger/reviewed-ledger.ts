import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { chainHash } from '../../src/core/hash-chain.js';
import type { Signer } from '../../src/core/signature.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { openReviewQueue } from '../../src/review/open-review-queue.js';
import { brief } from '../review/fixtures.js';
import { sealedRun } from './signed-runs.js';

/**
 * A SQLite ledger with one sealed run and a review queue where alice approved run-1 and carol rejected
 * run-2; with `signer`, the seal and every journal entry are signed.
 */
export async function reviewedLedger(file: string, { signer }: { signer?: Signer } = {}): Promise<void> {
  const ledger = await SqliteLedger.open({ database: file });
  try {
    await sealedRun(ledger, { at: 1_000, ...(signer === undefined ? {} : { signer }) });
  } finally {
    await ledger.close();
  }
  const queue = await openReviewQueue(file, signer === undefined ? {} : { signer });
  try {
    const ids: string[] = [];
    for (const runId of ['run-1', 'run-2']) ids.push((await queue.enqueue(brief(runId))).item?.id ?? '');
    await queue.claim('alice');
    await queue.verdict(ids[0] ?? '', { reviewer: 'alice', decision: 'approve', label: 'code_error' });
    await queue.claim('carol');
    await queue.verdict(ids[1] ?? '', { reviewer: 'carol', decision: 'reject', label: 'logic_error' });
  } finally {
    await queue.close();
  }
}

/**
 * What someone with write access does: drops the triggers, rewrites alice's verdict as bob's reject in
 * the journal and its table, recomputes every later journal hash and the state row's head. Returns the
 * rewritten entry's seq.
 */
export function rewriteVerdict(file: string): number {
  const db = new Database(file);
  try {
    for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as { name: string }[])
      db.exec(`DROP TRIGGER "${name}"`);
    const rows = db.prepare('SELECT seq, body, prev_hash AS prevHash FROM review_journal ORDER BY seq').all() as {
      seq: number;
      body: string;
      prevHash: string;
    }[];
    const target = rows.find((row) => row.body.includes('"reviewer":"alice"'));
    assert.ok(target !== undefined, 'alice’s verdict is journaled');
    let prevHash = target.prevHash;
    for (const row of rows.filter((each) => each.seq >= target.seq)) {
      const body =
        row.seq === target.seq
          ? row.body.replace('"decision":"approve"', '"decision":"reject"').replace('"reviewer":"alice"', '"reviewer":"bob"')
          : row.body;
      const hash = chainHash(prevHash, body);
      db.prepare('UPDATE review_journal SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(body, prevHash, hash, row.seq);
      prevHash = hash;
    }
    db.prepare('UPDATE review_state SET journal_hash = ?, approved = approved - 1 WHERE id = 1').run(prevHash);
    db.prepare("UPDATE review_verdicts SET reviewer = 'bob', decision = 'reject' WHERE reviewer = 'alice'").run();
    return target.seq;
  } finally {
    db.close();
  }
}
