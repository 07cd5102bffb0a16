import assert from 'node:assert/strict';
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { verifyCommand } from '../../src/cli/ledger-command.js';
import { LedgerError } from '../../src/errors/ledger-error.js';
import { MIGRATIONS } from '../../src/ledger/migrations.js';
import { PAGE_SIZE } from '../../src/db/sqlite/sqlite-database.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { verifyStoredJournal } from '../../src/review/open-review-queue.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { tempDir } from '../helpers/workspace.js';

// A ledger written by redline at schema version 2 (records in a WITHOUT ROWID table, 4 KB pages): the
// nine example missions of `redline demo` (seals signed with v2-layout.pub), one unsealed run whose
// process is gone, and a review queue of three items in the same file, one of them decided. Made once
// with the code of commit b8e76cf (`redline demo`, then SqliteLedger.append and SqliteReviewQueue
// enqueue/verdict, then VACUUM in journal_mode DELETE): today's code would write the new layout.
const FIXTURE = path.join(import.meta.dirname, '../fixtures/ledger/v2-layout.db');
const UNSEALED = 'unsealed-0000-fixture';

interface Snapshot {
  readonly runs: unknown[];
  readonly records: unknown[];
  readonly triggers: string[];
}

/** Every row of `runs` and `records`, byte for byte, and the names of the ledger's triggers. */
function snapshot(file: string): Snapshot {
  const db = new Database(file, { readonly: true });
  try {
    return {
      // The columns the fixture's version has: later versions add columns (NULL for runs recorded before them).
      runs: db
        .prepare(
          'SELECT run_id, mission_id, task_type, started_at, record_count, last_hash, sealed, outcome, verification, stop_reason FROM runs ORDER BY run_id',
        )
        .all(),
      records: db.prepare('SELECT run_id, seq, type, body, prev_hash, hash FROM records ORDER BY run_id, seq').all(),
      triggers: db
        .prepare<[], { name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('runs', 'records') ORDER BY name",
        )
        .all()
        .map((row) => row.name),
    };
  } finally {
    db.close();
  }
}

/** The file's layout: how `records` is declared, its page size and how many pages stand empty. */
function layout(file: string): { recordsSql: string; pageSize: number; freePages: number; versions: number[] } {
  const db = new Database(file, { readonly: true });
  try {
    return {
      recordsSql: (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'records'").get() as { sql: string }).sql,
      pageSize: db.pragma('page_size', { simple: true }) as number,
      freePages: db.pragma('freelist_count', { simple: true }) as number,
      versions: (db.prepare('SELECT version FROM redline_migrations ORDER BY version').all() as { version: number }[]).map(
        (row) => row.version,
      ),
    };
  } finally {
    db.close();
  }
}

const quiet = (lines: string[]) => ({ print: (line: string) => lines.push(line), progress: () => undefined });

describe('SQLite records layout: migrating a ledger written at schema version 2', () => {
  let dir: string;
  before(async () => {
    dir = await tempDir('redline-layout-');
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const copy = async (name: string): Promise<string> => {
    const file = path.join(dir, name);
    await copyFile(FIXTURE, file);
    return file;
  };

  it('the fixture is the old layout: WITHOUT ROWID records on 4 KB pages, versions 1 and 2', () => {
    const old = layout(FIXTURE);
    assert.match(old.recordsSql, /WITHOUT ROWID/);
    assert.equal(old.pageSize, 4096);
    assert.deepEqual(old.versions, [1, 2]);
  });

  it('`ledger verify` migrates it alone: the same rows byte for byte, rowid records on 8 KB pages, nothing free, every run and the queue journal verify', async () => {
    const file = await copy('alone.db');
    const was = snapshot(file);
    assert.equal(was.records.length, 74);

    // The queue's journal was written before its entries were signed: --allow-unsigned reports them.
    const publicKey = [FIXTURE.replace(/\.db$/, '.pub')];
    const lines: string[] = [];
    assert.equal(await verifyCommand({ ledger: file, publicKey, allowUnsigned: true }, quiet(lines)), 0, lines.join('\n'));
    assert.match(lines.join('\n'), /10 of 10 runs verify \(74 records\).*seal signatures: 9 valid, 0 invalid, 0 unsigned/);
    assert.match(
      lines.at(-1) ?? '',
      /^review queue journal verifies \(2 entries\); entry signatures: 0 valid, 0 invalid, 2 unsigned — checked with /,
    );
    lines.length = 0;
    assert.equal(await verifyCommand({ ledger: file, publicKey }, quiet(lines)), 1);
    assert.equal(lines.at(-1), 'BROKEN review queue journal: entry 0 signature — journal entry 0 is not signed (signatures are required)');

    assert.deepEqual(snapshot(file), was);
    const now = layout(file);
    assert.doesNotMatch(now.recordsSql, /WITHOUT ROWID/);
    assert.equal(now.pageSize, PAGE_SIZE);
    assert.equal(now.freePages, 0);
    assert.deepEqual(
      now.versions,
      MIGRATIONS.map((migration) => migration.version),
    );
  });

  it('keeps the page size, but frees nothing to waste, when another connection has the file open', async () => {
    const file = await copy('shared.db');
    const was = snapshot(file);
    const other = new Database(file);
    try {
      other.pragma('journal_mode = WAL');
      other.prepare('SELECT count(*) FROM runs').get();
      const ledger = await SqliteLedger.open({ database: file });
      try {
        assert.ok((await verifyLedger(ledger)).ok);
        // The other connection reads on, through the migration.
        assert.equal((other.prepare('SELECT count(*) AS n FROM records').get() as { n: number }).n, 74);
      } finally {
        await ledger.close();
      }
    } finally {
      other.close();
    }
    assert.deepEqual(snapshot(file), was);
    const now = layout(file);
    assert.doesNotMatch(now.recordsSql, /WITHOUT ROWID/);
    assert.equal(now.pageSize, 4096);
    assert.equal(now.freePages, 0);
  });

  it('after it, appends, the seal trigger and every guard work, and so does the review queue in the same file', async () => {
    const file = await copy('after.db');
    const ledger = await SqliteLedger.open({ database: file });
    try {
      const at = 1_700_000_000_002;
      await ledger.append({ runId: UNSEALED, seq: 2, type: 'attempt', at, data: { attempt: 2, value: 'after the migration' } });
      await ledger.append({
        runId: UNSEALED,
        seq: 3,
        type: 'run.sealed',
        at: at + 1,
        data: { outcome: 'failed_with_evidence', verification: 'unverified', stopReason: 'crashed' },
      });
      const [run] = await ledger.runs({ runId: UNSEALED });
      assert.deepEqual(
        { sealed: run?.sealed, count: run?.recordCount, outcome: run?.outcome, stopReason: run?.stopReason },
        { sealed: true, count: 4, outcome: 'failed_with_evidence', stopReason: 'crashed' },
      );
      await assert.rejects(
        ledger.append({ runId: UNSEALED, seq: 4, type: 'attempt', at, data: {} }),
        (error: unknown) => error instanceof LedgerError && error.code === 'ledger.sealed',
      );
      const fresh = 'fresh-after-migration';
      await ledger.append({ runId: fresh, seq: 0, type: 'run.started', at, data: { mission: { id: 'm', taskType: 't' } } });
      await assert.rejects(
        ledger.append({ runId: fresh, seq: 2, type: 'attempt', at, data: {} }),
        (error: unknown) => error instanceof LedgerError && error.code === 'ledger.out_of_order',
      );
      assert.ok((await verifyLedger(ledger)).ok);
    } finally {
      await ledger.close();
    }

    const raw = new Database(file);
    try {
      assert.throws(() => raw.prepare("UPDATE records SET body = 'x' WHERE seq = 0").run(), /redline\.ledger\.append_only/);
      assert.throws(() => raw.prepare('DELETE FROM records').run(), /redline\.ledger\.append_only/);
      // The primary key's uniqueness moved to an index: a second row at a taken position is still refused.
      raw.exec('DROP TRIGGER records_refuse_out_of_order; DROP TRIGGER records_refuse_after_seal');
      const first = raw.prepare("SELECT * FROM records WHERE run_id = 'fresh-after-migration'").get() as Record<string, unknown>;
      assert.throws(
        () =>
          raw.prepare('INSERT INTO records (run_id, seq, type, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)').run(Object.values(first)),
        /UNIQUE constraint failed: records\.run_id, records\.seq/,
      );
    } finally {
      raw.close();
    }

    const queue = await SqliteReviewQueue.open({ database: file });
    try {
      assert.equal(await queue.depth(), 2);
      const claimed = await queue.claim('bo');
      assert.ok(claimed !== undefined);
      await queue.verdict(claimed.item.id, { reviewer: 'bo', decision: 'reject', label: 'logic_error' });
      assert.equal(await queue.depth(), 1);
    } finally {
      await queue.close();
    }
    assert.deepEqual(await verifyStoredJournal(file).then((result) => ({ ok: result?.ok, records: result?.records })), {
      ok: true,
      records: 3,
    });
  });

  it('a new ledger starts in the new layout with 8 KB pages', async () => {
    const file = path.join(dir, 'new.db');
    await (await SqliteLedger.open({ database: file })).close();
    const now = layout(file);
    assert.doesNotMatch(now.recordsSql, /WITHOUT ROWID/);
    assert.equal(now.pageSize, PAGE_SIZE);
    assert.deepEqual(
      now.versions,
      MIGRATIONS.map((migration) => migration.version),
    );
  });
});
