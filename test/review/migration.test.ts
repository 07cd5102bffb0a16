import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { verifyStoredJournal } from '../../src/review/open-review-queue.js';
import { PRE_JOURNAL, preJournalColumn } from '../../src/review/pre-journal.js';
import type { ReviewQueue } from '../../src/review/review-queue.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { backends } from './backends.js';
import { brief, testRuntime } from './fixtures.js';
import { tempDir } from '../helpers/workspace.js';

const postgres = backends.find((backend) => backend.name === 'postgres') as (typeof backends)[number];

// Turns a queue file back into what schema version 3 wrote: no counters (nor version 5's counts of rows
// before the journal) in the state row, the dropped item copied into the breaker log, version 3's state
// guard, no version 4 indexes (nor version 6's reviewers table, nor version 7's journal signatures) or migration rows past 3.
const BACK_TO_VERSION_3 = `
DROP TRIGGER review_state_refuse_update;
${PRE_JOURNAL.map(([table]) => `ALTER TABLE review_state DROP COLUMN ${preJournalColumn(table)};`).join('\n')}
DROP TRIGGER review_breaker_log_refuse_update;
DROP INDEX review_breaker_log_item;
DROP INDEX review_items_live_claims;
${['depth', 'verdicts', 'approved', 'dropped', 'alerts'].map((column) => `ALTER TABLE review_state DROP COLUMN ${column};`).join('\n')}
ALTER TABLE review_breaker_log ADD COLUMN item TEXT NOT NULL DEFAULT '';
UPDATE review_breaker_log SET item = (SELECT item FROM review_items i WHERE i.id = item_id);
CREATE TRIGGER review_breaker_log_refuse_update BEFORE UPDATE ON review_breaker_log
BEGIN SELECT RAISE(ABORT, 'redline.review.append_only: UPDATE on review_breaker_log refused: the queue keeps what the journal proves'); END;
CREATE TRIGGER review_state_refuse_update BEFORE UPDATE ON review_state
WHEN NEW.journal_count < OLD.journal_count OR (NEW.journal_count = OLD.journal_count AND NEW.journal_hash IS NOT OLD.journal_hash) OR NEW.settings_version < OLD.settings_version
BEGIN SELECT RAISE(ABORT, 'redline.review.append_only: UPDATE on review_state refused: the journal head only advances'); END;
DROP TABLE review_reviewers;
ALTER TABLE review_journal DROP COLUMN signature;
DELETE FROM review_migrations WHERE version >= 4;
`;

// The same on PostgreSQL, where version 1 already kept the depth and the guards are per row and TRUNCATE.
const POSTGRES_BACK_TO_VERSION_3 = `
DROP TRIGGER review_state_refuse_update ON review_state;
ALTER TABLE review_state ${[...PRE_JOURNAL.map(([table]) => preJournalColumn(table)), 'verdicts', 'approved', 'dropped', 'alerts'].map((column) => `DROP COLUMN ${column}`).join(', ')};
DROP INDEX review_breaker_log_item;
DROP INDEX review_items_live_claims;
ALTER TABLE review_breaker_log ADD COLUMN item TEXT NOT NULL DEFAULT '';
UPDATE review_breaker_log SET item = (SELECT item FROM review_items i WHERE i.id = item_id);
ALTER TABLE review_breaker_log ALTER COLUMN item DROP DEFAULT;
CREATE TRIGGER review_state_refuse_update BEFORE UPDATE ON review_state FOR EACH ROW
WHEN (NEW.journal_count < OLD.journal_count OR (NEW.journal_count = OLD.journal_count AND NEW.journal_hash IS DISTINCT FROM OLD.journal_hash)
  OR NEW.settings_version < OLD.settings_version)
EXECUTE FUNCTION review_refuse_change('the journal head only advances');
DROP TABLE review_reviewers;
ALTER TABLE review_journal DROP COLUMN signature;
DELETE FROM review_migrations WHERE version >= 4
`;

/** The queue's history the migration tests write before turning it back: a verdict, a drop, an alert, a claim. */
async function fill(queue: ReviewQueue): Promise<void> {
  const a = (await queue.enqueue(brief('a', { priority: 2 }))).item;
  await queue.enqueue(brief('b'));
  await queue.enqueue(brief('c', { priority: 1 }));
  await queue.verdict(a?.id ?? '', { reviewer: 'ana', decision: 'approve', label: 'unclear' });
  await queue.recordRun({ runId: 'r1', budgetCapped: true });
  await queue.recordRun({ runId: 'r2', budgetCapped: true });
  await queue.claim('bo');
}

describe('review queue migration to running counters (SQLite, version 3 → 4)', () => {
  it('computes the counters of a queue written by version 3, keeps its guards, and it verifies before and after', async () => {
    const dir = await tempDir('redline-review-migration-');
    const file = path.join(dir, 'redline.db');
    try {
      const clock = testRuntime();
      const options = clock.options({ backpressure: { capacity: 2 }, alerts: { threshold: 0.5, window: 2 } });
      const queue = await SqliteReviewQueue.open({ database: file, synchronous: 'off', ...options });
      await fill(queue);
      const stats = await queue.stats();
      const dropped = await queue.droppedItems();
      assert.deepEqual([stats.depth, stats.verdicts.total, stats.dropped, stats.alerts, stats.claimed], [1, 1, 1, 1, 1]);
      await queue.close();

      const db = new Database(file);
      db.exec(`BEGIN; ${BACK_TO_VERSION_3} COMMIT;`);
      db.close();
      assert.equal((await verifyStoredJournal(file))?.ok, true, 'a version 3 queue verifies as found, without migrating');

      const migrated = await SqliteReviewQueue.open({ database: file, synchronous: 'off', ...options });
      try {
        assert.deepEqual(await migrated.stats(), stats);
        assert.deepEqual(await migrated.droppedItems(), dropped);
        assert.deepEqual(await migrated.verifyJournal(), await verifyStoredJournal(file));
        assert.equal((await migrated.verifyJournal()).ok, true);
        const raw = new Database(file);
        try {
          assert.throws(() => raw.exec('UPDATE review_state SET verdicts = 0'), /UPDATE on review_state refused/);
          assert.throws(() => raw.exec('UPDATE review_state SET journal_count = 0'), /UPDATE on review_state refused/);
          assert.throws(() => raw.exec('DELETE FROM review_breaker_log'), /DELETE on review_breaker_log refused/);
          assert.deepEqual(
            (raw.prepare('PRAGMA table_info(review_breaker_log)').all() as { name: string }[]).map((column) => column.name),
            ['seq', 'item_id', 'dropped_at', 'depth', 'displaced_by'],
            'the breaker log keeps no copy of the dropped item',
          );
        } finally {
          raw.close();
        }
        // The migrated queue goes on counting.
        await migrated.enqueue(brief('d'));
        assert.equal((await migrated.stats()).depth, 2);
        assert.equal((await migrated.verifyJournal()).ok, true);
      } finally {
        await migrated.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('review queue migration to running counters (PostgreSQL, version 3 → 4)', () => {
  it('computes the counters of a queue written by version 3, keeps its guards, and it verifies before and after', async () => {
    const options = testRuntime().options({ backpressure: { capacity: 2 }, alerts: { threshold: 0.5, window: 2 } });
    const opened = await postgres.open(options);
    try {
      const { queue, reopen, location, tamper, raw } = opened as Required<typeof opened>;
      await fill(queue);
      const stats = await queue.stats();
      const dropped = await queue.droppedItems();
      assert.deepEqual([stats.depth, stats.verdicts.total, stats.dropped, stats.alerts, stats.claimed], [1, 1, 1, 1, 1]);

      // Past the guards (the first queue, left idle, is closed with the schema): the breaker log's copy of the dropped item is written back as version 3 kept it.
      await tamper(POSTGRES_BACK_TO_VERSION_3);
      assert.equal((await verifyStoredJournal(location))?.ok, true, 'a version 3 queue verifies as found, without migrating');

      const migrated = await reopen(options);
      assert.deepEqual(await migrated.stats(), stats);
      assert.deepEqual(await migrated.droppedItems(), dropped);
      assert.deepEqual(await migrated.verifyJournal(), await verifyStoredJournal(location));
      assert.equal((await migrated.verifyJournal()).ok, true);
      await assert.rejects(raw('UPDATE review_state SET verdicts = 0'), /UPDATE on review_state refused/);
      await assert.rejects(raw('UPDATE review_state SET journal_count = 0'), /UPDATE on review_state refused/);
      await assert.rejects(raw('UPDATE review_state SET prejournal_verdicts = 1'), /UPDATE on review_state refused/);
      await assert.rejects(raw('DELETE FROM review_breaker_log'), /DELETE on review_breaker_log refused/);
      await assert.rejects(raw('SELECT item FROM review_breaker_log'), /column "item" does not exist/);
      // The migrated queue goes on counting.
      await migrated.enqueue(brief('d'));
      assert.equal((await migrated.stats()).depth, 2);
      assert.equal((await migrated.verifyJournal()).ok, true);
    } finally {
      await opened.close();
    }
  });
});
