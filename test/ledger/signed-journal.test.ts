import assert from 'node:assert/strict';
import { copyFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { verifyCommand } from '../../src/cli/ledger-command.js';
import { reviewClaimCommand, reviewVerdictCommand } from '../../src/cli/review-command.js';
import type { Output } from '../../src/cli/run-command.js';
import { openSigner } from '../../src/ledger/signing-key.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { signJournalRows } from '../../src/review/journal-signature.js';
import { openReviewQueue } from '../../src/review/open-review-queue.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';
import { reviewedLedger, rewriteVerdict } from './reviewed-ledger.js';
import { keyPair, sealedRun } from './signed-runs.js';

function capture(): Output & { out: string[]; err: string[]; text: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, text: () => out.join('\n'), print: (line) => void out.push(line), progress: (line) => void err.push(line) };
}

/** Runs statements on a SQLite ledger past the journal's triggers, as someone with write access can. */
function tamper(file: string, edit: (db: Database.Database) => void): void {
  const db = new Database(file);
  try {
    for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as { name: string }[])
      db.exec(`DROP TRIGGER "${name}"`);
    edit(db);
  } finally {
    db.close();
  }
}

describe('redline ledger verify --public-key checks the review journal entries’ signatures', () => {
  it('fails, naming the entry, on a verdict rewritten with every later hash recomputed, a stripped signature, or another key', async () => {
    const dir = await tempWorkspace({});
    try {
      const key = keyPair('the ledger key');
      const pub = path.join(dir, 'ledger-key.pub');
      await writeFile(pub, key.publicKey.key.export({ type: 'spki', format: 'pem' }));
      const file = path.join(dir, 'redline.db');
      await reviewedLedger(file, { signer: key.signer });

      const signed = capture();
      assert.equal(await verifyCommand({ ledger: file, publicKey: [pub] }, signed), 0, signed.text());
      assert.match(
        signed.text(),
        /review queue journal verifies \((\d+) entries\); entry signatures: \1 valid, 0 invalid, 0 unsigned — checked with .*ledger-key\.pub/,
      );

      // alice's approve rewritten as bob's reject, every later hash and the state row recomputed: the chain holds, the signature does not.
      const forged = path.join(dir, 'forged.db');
      await copyFile(file, forged);
      const seq = rewriteVerdict(forged);
      const rewritten = capture();
      assert.equal(await verifyCommand({ ledger: forged, publicKey: [pub] }, rewritten), 1);
      assert.match(
        rewritten.text(),
        new RegExp(
          `BROKEN review queue journal: entry ${seq} signature — journal entry ${seq}'s signature does not verify with key ${key.signer.keyId}: the entry, or one before it, was changed after it was signed`,
        ),
      );

      // Its signature stripped: not signed, which --public-key requires; with --allow-unsigned, the next entry's signature covers it.
      tamper(forged, (db) => db.prepare('UPDATE review_journal SET signature = NULL WHERE seq = ?').run(seq));
      const stripped = capture();
      assert.equal(await verifyCommand({ ledger: forged, publicKey: [pub] }, stripped), 1);
      assert.match(
        stripped.text(),
        new RegExp(
          `BROKEN review queue journal: entry ${seq} signature — journal entry ${seq} is not signed \\(signatures are required\\)`,
        ),
      );
      const allowed = capture();
      assert.equal(await verifyCommand({ ledger: forged, publicKey: [pub], allowUnsigned: true }, allowed), 1);
      assert.match(allowed.text(), new RegExp(`BROKEN review queue journal: entry ${seq + 1} signature — .*does not verify`));

      // Re-signed from the rewritten entry on with a key that is not the ledger's.
      const other = keyPair('another key');
      tamper(forged, (db) => {
        const rows = db.prepare('SELECT seq, body, prev_hash AS prevHash FROM review_journal WHERE seq >= ? ORDER BY seq').all(seq) as {
          seq: number;
          body: string;
          prevHash: string;
          signature?: string;
        }[];
        for (const row of signJournalRows(rows, other.signer))
          db.prepare('UPDATE review_journal SET signature = ? WHERE seq = ?').run(row.signature ?? null, row.seq);
      });
      const resigned = capture();
      assert.equal(await verifyCommand({ ledger: forged, publicKey: [pub] }, resigned), 1);
      assert.match(
        resigned.text(),
        new RegExp(
          `BROKEN review queue journal: entry ${seq} signature — journal entry ${seq} is signed by key ${other.signer.keyId}, which is not one of the 1 public key\\(s\\) given`,
        ),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails on entries appended unsigned, and --allow-unsigned reports them without proving them', async () => {
    const dir = await tempWorkspace({});
    try {
      const key = keyPair('the ledger key');
      const pub = path.join(dir, 'ledger-key.pub');
      await writeFile(pub, key.publicKey.key.export({ type: 'spki', format: 'pem' }));
      const file = path.join(dir, 'redline.db');
      const ledger = await SqliteLedger.open({ database: file });
      await sealedRun(ledger, { at: 1_000, signer: key.signer }).finally(() => ledger.close());
      // A queue written before its entries were signed.
      const queue = await openReviewQueue(file);
      await queue.enqueue(brief('run-1')).finally(() => queue.close());

      const required = capture();
      assert.equal(await verifyCommand({ ledger: file, publicKey: [pub] }, required), 1);
      assert.match(
        required.text(),
        /BROKEN review queue journal: entry 0 signature — journal entry 0 is not signed \(signatures are required\)/,
      );
      const allowed = capture();
      assert.equal(await verifyCommand({ ledger: file, publicKey: [pub], allowUnsigned: true }, allowed), 0, allowed.text());
      assert.match(
        allowed.text(),
        /review queue journal verifies \(1 entry\); entry signatures: 0 valid, 0 invalid, 1 unsigned — checked with/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('redline review commands sign with the ledger’s local key, as redline run finds it', async () => {
    const dir = await tempWorkspace({});
    try {
      const file = path.join(dir, 'redline.db');
      // `redline run` creates the local key beside the ledger and signs its seal with it.
      const { signer } = await openSigner({ location: file });
      const ledger = await SqliteLedger.open({ database: file });
      await sealedRun(ledger, { at: 1_000, signer }).finally(() => ledger.close());
      const queue = await openReviewQueue(file, { signer });
      const { item } = await queue.enqueue(brief('run-1')).finally(() => queue.close());

      assert.equal(await reviewClaimCommand({ reviewer: 'alice', lease: '30m', ledger: file }, capture()), 0);
      assert.equal(
        await reviewVerdictCommand(item?.id ?? '', { reviewer: 'alice', approve: true, label: 'code_error', ledger: file }, capture()),
        0,
      );
      const verified = capture();
      assert.equal(await verifyCommand({ ledger: file, publicKey: [path.join(dir, 'signing-key.pub')] }, verified), 0, verified.text());
      assert.match(verified.text(), /review queue journal verifies \((\d+) entries\); entry signatures: \1 valid, 0 invalid, 0 unsigned/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
