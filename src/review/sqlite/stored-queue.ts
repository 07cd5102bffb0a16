import type { SqliteDatabase } from '../../db/sqlite/sqlite-database.js';
import type { QueueMode } from '../backpressure.js';
import { keepsPreJournal, preJournalCountQueries, preJournalOf, type ProvenTable } from '../pre-journal.js';
import { countersOf, type QueueCounters, type QueueStore } from '../queue-tables.js';
import {
  DROPPED_COLUMNS,
  toAlert,
  toDropped,
  toJournalRow,
  toLimitChange,
  toModeChange,
  toVerdict,
  type AlertRow,
  type BreakerRow,
  type JournalSqlRow,
  type LimitChangeRow,
  type ModeChangeRow,
  type VerdictRow,
} from '../sql-rows.js';

/** The state row; the counters only from schema version 4 on. */
interface StateRow extends Partial<QueueCounters> {
  mode: QueueMode;
  attempt_limit: number;
  settings: string | null;
  journal_count: number;
  journal_hash: string;
}

const TABLES: Record<ProvenTable, { sql: string; read: (row: never) => object }> = {
  review_verdicts: { sql: 'SELECT * FROM review_verdicts', read: (row: VerdictRow) => toVerdict(row) },
  // The dropped item's brief is the item row's: the log keeps no copy (from schema version 4 on).
  review_breaker_log: {
    sql: `SELECT ${DROPPED_COLUMNS} FROM review_breaker_log b JOIN review_items i ON i.id = b.item_id`,
    read: (row: BreakerRow) => toDropped(row),
  },
  review_alerts: { sql: 'SELECT * FROM review_alerts', read: (row: AlertRow) => toAlert(row) },
  review_mode_changes: { sql: 'SELECT * FROM review_mode_changes', read: (row: ModeChangeRow) => toModeChange(row) },
  review_limit_changes: { sql: 'SELECT * FROM review_limit_changes', read: (row: LimitChangeRow) => toLimitChange(row) },
};

/**
 * A SQLite queue as verification reads it, page by page. The caller holds one read transaction around
 * the whole verification, so every page comes from one snapshot. Reads a queue of any schema version
 * from 2 on, as `redline ledger verify` finds it without migrating.
 */
export function sqliteQueueStore(db: Pick<SqliteDatabase, 'prepare'>): QueueStore {
  // `*`: a queue migrated before entries were signed has no `signature` column.
  const journal = db.prepare('SELECT * FROM review_journal WHERE seq > ? ORDER BY seq LIMIT ?');
  const pages = Object.fromEntries(
    Object.entries(TABLES).map(([table, { sql }]) => [table, db.prepare(`SELECT * FROM (${sql}) WHERE seq > ? ORDER BY seq LIMIT ?`)]),
  ) as Record<ProvenTable, ReturnType<typeof db.prepare>>;
  const count = (sql: string): number => (db.prepare(sql).get() as { n: number }).n;
  return {
    state() {
      const row = db.prepare('SELECT * FROM review_state WHERE id = 1').get() as StateRow | undefined;
      if (row === undefined) return undefined;
      return {
        head: { count: Number(row.journal_count), lastHash: row.journal_hash },
        mode: row.mode,
        attemptLimit: Number(row.attempt_limit),
        settings: row.settings,
        counters: countersOf({ ...row }),
        // A queue older than version 5 is read as the migration would leave it: its pre-journal rows counted now.
        preJournal: keepsPreJournal({ ...row })
          ? preJournalOf({ ...row })
          : Object.fromEntries(preJournalCountQueries().map(([table, sql]) => [table, Math.max(0, count(sql))])),
      };
    },
    journal: (after, limit) => (journal.all(after, limit) as JournalSqlRow[]).map(toJournalRow),
    rows(table, after, limit) {
      const read = TABLES[table].read as (row: unknown) => object;
      return (pages[table].all(after, limit) as { seq: number }[]).map((row) => ({ seq: Number(row.seq), value: read(row) }));
    },
    itemStates: (ids) =>
      db.prepare(`SELECT id, state FROM review_items WHERE id IN (${ids.map(() => '?').join(', ')})`).all(...ids) as {
        id: string;
        state: string;
      }[],
    unexplainedItem: () =>
      db
        .prepare(
          `SELECT id, state FROM review_items i WHERE (state = 'decided' AND NOT EXISTS (SELECT 1 FROM review_verdicts v WHERE v.item_id = i.id))
            OR (state = 'dropped' AND NOT EXISTS (SELECT 1 FROM review_breaker_log b WHERE b.item_id = i.id)) ORDER BY seq LIMIT 1`,
        )
        .get() as { id: string; state: string } | undefined,
    counts: () => ({
      depth: count("SELECT count(*) AS n FROM review_items WHERE state = 'open'"),
      verdicts: count('SELECT count(*) AS n FROM review_verdicts'),
      approved: count("SELECT count(*) AS n FROM review_verdicts WHERE decision = 'approve'"),
      dropped: count('SELECT count(*) AS n FROM review_breaker_log'),
      alerts: count('SELECT count(*) AS n FROM review_alerts'),
    }),
  };
}
