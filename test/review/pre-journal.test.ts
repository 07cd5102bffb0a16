import assert from 'node:assert/strict';
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { verifyCommand } from '../../src/cli/ledger-command.js';
import { verifyStoredJournal } from '../../src/review/open-review-queue.js';
import { applyMigrations } from '../../src/db/sqlite/apply-migrations.js';
import { openSqliteFile } from '../../src/db/sqlite/sqlite-database.js';
import { REVIEW_MIGRATIONS } from '../../src/review/migrations.js';
import { SQLITE_REVIEW_MIGRATIONS } from '../../src/review/sqlite/migrations.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { backends } from './backends.js';
import { brief, testRuntime } from './fixtures.js';
import { tamperSqlite } from './backends.js';
import { tempDir } from '../helpers/workspace.js';

// A queue written at schema version 1 by the CLI of the commit before the journal (see
// test/fixtures/review/README.md): 17 items, 10 verdicts, 3 drops, an alert, a mode change and a limit
// change, none of them journaled.
const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/review/queue-v1.db');
const NOTES = [
  'review queue: 10 verdicts recorded before the journal, not covered by it',
  'review queue: 3 dropped items recorded before the journal, not covered by it',
  'review queue: 1 alert recorded before the journal, not covered by it',
  'review queue: 1 mode change recorded before the journal, not covered by it',
  'review queue: 1 limit change recorded before the journal, not covered by it',
];
const PRE_JOURNAL = { review_verdicts: 10, review_breaker_log: 3, review_alerts: 1, review_mode_changes: 1, review_limit_changes: 1 };

/** `redline ledger verify` in-process: its exit code and lines. */
async function ledgerVerify(ledger: string): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await verifyCommand({ ledger }, { print: (line: string) => lines.push(line), progress: () => undefined });
  return { code, lines };
}

describe('a review queue created before its journal (SQLite, schema version 1 → 5)', () => {
  it('migrates and verifies, its rows from before the journal reported as such, and a journaled row tampered with is still caught', async () => {
    const dir = await tempDir('redline-review-v1-');
    const file = path.join(dir, 'redline.db');
    try {
      await copyFile(FIXTURE, file);
      assert.equal(await verifyStoredJournal(file), undefined, 'a version 1 queue has no journal to verify');

      const queue = await SqliteReviewQueue.open({ database: file, synchronous: 'off' });
      try {
        const before = await queue.stats();
        assert.deepEqual([before.verdicts.total, before.dropped, before.alerts, before.attemptLimit], [10, 3, 1, 6]);
        const open = (await queue.list())[0]?.item.id ?? '';
        await queue.verdict(open, { reviewer: 'bo', decision: 'reject', label: 'code_error' });
        assert.deepEqual((await queue.verifyJournal()).preJournal, PRE_JOURNAL);
      } finally {
        await queue.close();
      }

      const verified = await ledgerVerify(file);
      assert.equal(verified.code, 0, verified.lines.join('\n'));
      assert.match(verified.lines.join('\n'), /review queue journal verifies \(\d+ entries\)/);
      assert.deepEqual(verified.lines.slice(-NOTES.length), NOTES);

      const raw = new Database(file);
      try {
        assert.throws(() => raw.exec('UPDATE review_state SET prejournal_verdicts = 11'), /review_state refused/, 'the count is fixed');
      } finally {
        raw.close();
      }

      // The verdict given after the migration is journaled: editing it is caught.
      tamperSqlite(file, "UPDATE review_verdicts SET decision = 'approve' WHERE reviewer = 'bo'");
      const edited = await ledgerVerify(file);
      assert.equal(edited.code, 1);
      assert.match(
        edited.lines.join('\n'),
        /BROKEN review queue: review_verdicts disagrees with the journal — verdict \S+ in review_verdicts differs from journal entry \d+: decision/,
      );

      // Nor does counting it among the rows from before the journal pass.
      tamperSqlite(
        file,
        "UPDATE review_verdicts SET decision = 'reject' WHERE reviewer = 'bo'; UPDATE review_state SET prejournal_verdicts = 11",
      );
      const recounted = await ledgerVerify(file);
      assert.equal(recounted.code, 1);
      assert.match(
        recounted.lines.join('\n'),
        /BROKEN review queue: review_verdicts disagrees with the journal — verdict \S+ of journal entry \d+ is missing/,
      );

      // Nor claiming more rows than the table holds.
      tamperSqlite(file, 'UPDATE review_state SET prejournal_verdicts = 12');
      assert.deepEqual((await verifyStoredJournal(file))?.disagreement, {
        table: 'review_verdicts',
        detail: 'review_verdicts holds 11 verdicts, but review_state counts 12 recorded before the journal',
      });

      // A row from before the journal whose item is still open is not what it claims.
      tamperSqlite(
        file,
        "UPDATE review_state SET prejournal_verdicts = 10; UPDATE review_items SET state = 'open' WHERE id = (SELECT item_id FROM review_verdicts ORDER BY seq LIMIT 1)",
      );
      const reopened = await verifyStoredJournal(file);
      assert.equal(reopened?.ok, false);
      assert.match(
        reopened?.disagreement?.detail ?? '',
        /is not decided in review_items, but its row in review_verdicts from before the journal says decided/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a review queue from before its journal, at schema version 2 to 4 (SQLite)', () => {
  for (const version of [2, 3, 4]) {
    it(`verifies as found at version ${version}, without migrating, its rows from before the journal counted and reported`, async () => {
      const dir = await tempDir('redline-review-v1-');
      const file = path.join(dir, 'redline.db');
      try {
        await copyFile(FIXTURE, file);
        // What an older redline left: the version 1 queue taken up to `version` by its migrations alone.
        const db = await openSqliteFile(file);
        try {
          applyMigrations(db, {
            table: 'review_migrations',
            migrations: REVIEW_MIGRATIONS.filter((migration) => migration.version <= version),
            sql: (at) => SQLITE_REVIEW_MIGRATIONS[at as keyof typeof SQLITE_REVIEW_MIGRATIONS],
          });
        } finally {
          db.close();
        }

        assert.deepEqual((await verifyStoredJournal(file))?.preJournal, PRE_JOURNAL);
        const verified = await ledgerVerify(file);
        assert.equal(verified.code, 0, verified.lines.join('\n'));
        assert.deepEqual(verified.lines.slice(-NOTES.length), NOTES);
        const untouched = new Database(file, { readonly: true });
        try {
          const applied = untouched.prepare('SELECT max(version) AS version FROM review_migrations').get() as { version: number };
          assert.equal(applied.version, version, 'verification migrates nothing');
        } finally {
          untouched.close();
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});

for (const backend of backends.filter((candidate) => candidate.name !== 'memory')) {
  describe(`a review queue born with its journal: ${backend.name}`, () => {
    it('counts no rows from before the journal, whatever it goes through', async () => {
      const opened = await backend.open(testRuntime().options({ backpressure: { capacity: 2 }, alerts: { threshold: 0.5, window: 2 } }));
      try {
        const { queue, location } = opened as Required<typeof opened>;
        const first = (await queue.enqueue(brief('a', { priority: 2 }))).item?.id ?? '';
        await queue.enqueue(brief('b'));
        await queue.enqueue(brief('c', { priority: 1 }));
        await queue.verdict(first, { reviewer: 'ana', decision: 'approve', label: 'unclear' });
        await queue.recordRun({ runId: 'r1', budgetCapped: true });
        await queue.recordRun({ runId: 'r2', budgetCapped: true });
        const stats = await queue.stats();
        assert.deepEqual([stats.verdicts.total, stats.dropped, stats.alerts], [1, 1, 1]);
        assert.ok((await queue.modeChanges()).length > 0);

        const verified = await verifyStoredJournal(location);
        assert.equal(verified?.ok, true);
        assert.equal(verified?.preJournal, undefined);
        const { lines } = await ledgerVerify(location);
        assert.ok(!lines.some((line) => line.includes('before the journal')), lines.join('\n'));
      } finally {
        await opened.close();
      }
    });
  });
}
