import type { SqliteDatabase } from '../../ledger/sqlite/sqlite-database.js';
import type { QueueMode } from '../backpressure.js';
import { EMPTY_JOURNAL } from '../journal.js';
import type { StoredQueue } from '../queue-tables.js';
import {
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

interface StateRow {
  mode: QueueMode;
  attempt_limit: number;
  settings: string | null;
  journal_count: number;
  journal_hash: string;
}

/**
 * Reads a SQLite queue whole for verification: the journal, the head the state row keeps, and every
 * table the journal proves. The caller holds one read transaction, so all of it is one snapshot.
 */
export function readSqliteQueue(db: Pick<SqliteDatabase, 'prepare'>): StoredQueue {
  const all = <R>(sql: string): R[] => db.prepare(sql).all() as R[];
  const state = db.prepare('SELECT mode, attempt_limit, settings, journal_count, journal_hash FROM review_state WHERE id = 1').get() as
    StateRow | undefined;
  return {
    rows: all<JournalSqlRow>('SELECT seq, type, body, prev_hash, hash FROM review_journal ORDER BY seq').map(toJournalRow),
    // A journal table without a state row has appended nothing.
    head: state === undefined ? EMPTY_JOURNAL : { count: Number(state.journal_count), lastHash: state.journal_hash },
    tables: {
      ...(state === undefined ? {} : { state: { mode: state.mode, attemptLimit: Number(state.attempt_limit), settings: state.settings } }),
      openItems: (db.prepare("SELECT count(*) AS n FROM review_items WHERE state = 'open'").get() as { n: number }).n,
      closedItems: all<{ id: string; state: 'decided' | 'dropped' }>(
        "SELECT id, state FROM review_items WHERE state <> 'open' ORDER BY seq",
      ),
      verdicts: all<VerdictRow>('SELECT * FROM review_verdicts ORDER BY seq').map(toVerdict),
      dropped: all<BreakerRow>('SELECT * FROM review_breaker_log ORDER BY seq').map(toDropped),
      modeChanges: all<ModeChangeRow>('SELECT * FROM review_mode_changes ORDER BY seq').map(toModeChange),
      limitChanges: all<LimitChangeRow>('SELECT * FROM review_limit_changes ORDER BY seq').map(toLimitChange),
      alerts: all<AlertRow>('SELECT * FROM review_alerts ORDER BY seq').map(toAlert),
    },
  };
}
