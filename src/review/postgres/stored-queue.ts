import type { PgClient } from '../../ledger/postgres/pg-pool.js';
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
  depth: number;
  /** BIGINT: `pg` hands it over as a string. */
  journal_count: string;
  journal_hash: string;
}

/**
 * Reads a PostgreSQL queue whole for verification: the journal, the head the state row keeps, and every
 * table the journal proves. `S` is the schema, quoted. The caller holds one REPEATABLE READ transaction,
 * so all of it is one snapshot.
 */
export async function readPostgresQueue(client: Pick<PgClient, 'query'>, S: string): Promise<StoredQueue> {
  const all = async <R>(sql: string): Promise<R[]> => (await client.query<R>(sql)).rows;
  const [state] = await all<StateRow>(
    `SELECT mode, attempt_limit, settings, depth, journal_count, journal_hash FROM ${S}.review_state WHERE id = 1`,
  );
  const journal = await all<JournalSqlRow>(`SELECT seq, type, body, prev_hash, hash FROM ${S}.review_journal ORDER BY seq`);
  return {
    rows: journal.map(toJournalRow),
    // A journal table without a state row has appended nothing.
    head: state === undefined ? EMPTY_JOURNAL : { count: Number(state.journal_count), lastHash: state.journal_hash },
    tables: {
      ...(state === undefined
        ? {}
        : { state: { mode: state.mode, attemptLimit: Number(state.attempt_limit), settings: state.settings, depth: Number(state.depth) } }),
      openItems: (await all<{ n: number }>(`SELECT count(*)::int AS n FROM ${S}.review_items WHERE state = 'open'`))[0]?.n ?? 0,
      closedItems: await all<{ id: string; state: 'decided' | 'dropped' }>(
        `SELECT id, state FROM ${S}.review_items WHERE state <> 'open' ORDER BY seq`,
      ),
      verdicts: (await all<VerdictRow>(`SELECT * FROM ${S}.review_verdicts ORDER BY seq`)).map(toVerdict),
      dropped: (await all<BreakerRow>(`SELECT * FROM ${S}.review_breaker_log ORDER BY seq`)).map(toDropped),
      modeChanges: (await all<ModeChangeRow>(`SELECT * FROM ${S}.review_mode_changes ORDER BY seq`)).map(toModeChange),
      limitChanges: (await all<LimitChangeRow>(`SELECT * FROM ${S}.review_limit_changes ORDER BY seq`)).map(toLimitChange),
      alerts: (await all<AlertRow>(`SELECT * FROM ${S}.review_alerts ORDER BY seq`)).map(toAlert),
    },
  };
}
