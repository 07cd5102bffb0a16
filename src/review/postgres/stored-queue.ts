import type { PgClient } from '../../db/postgres/pg-pool.js';
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

/** The state row; the counters beside the depth only from schema version 4 on. */
interface StateRow extends Partial<Omit<QueueCounters, 'depth'>> {
  mode: QueueMode;
  attempt_limit: number;
  settings: string | null;
  depth: number;
  /** BIGINT: `pg` hands it over as a string. */
  journal_count: string;
  journal_hash: string;
}

const TABLES: Record<ProvenTable, { sql: (S: string) => string; read: (row: never) => object }> = {
  review_verdicts: { sql: (S) => `SELECT * FROM ${S}.review_verdicts`, read: (row: VerdictRow) => toVerdict(row) },
  // The dropped item's brief is the item row's: the log keeps no copy (from schema version 4 on).
  review_breaker_log: {
    sql: (S) => `SELECT ${DROPPED_COLUMNS} FROM ${S}.review_breaker_log b JOIN ${S}.review_items i ON i.id = b.item_id`,
    read: (row: BreakerRow) => toDropped(row),
  },
  review_alerts: { sql: (S) => `SELECT * FROM ${S}.review_alerts`, read: (row: AlertRow) => toAlert(row) },
  review_mode_changes: { sql: (S) => `SELECT * FROM ${S}.review_mode_changes`, read: (row: ModeChangeRow) => toModeChange(row) },
  review_limit_changes: { sql: (S) => `SELECT * FROM ${S}.review_limit_changes`, read: (row: LimitChangeRow) => toLimitChange(row) },
};

/**
 * A PostgreSQL queue as verification reads it, page by page (keyset on `seq`). `S` is the schema,
 * quoted. The caller holds one REPEATABLE READ transaction around the whole verification, so every
 * page comes from one snapshot. Reads a queue of any schema version from 2 on, as `redline ledger
 * verify` finds it without migrating.
 */
export function postgresQueueStore(client: Pick<PgClient, 'query'>, S: string): QueueStore {
  const all = async <R>(sql: string, values: readonly unknown[] = []): Promise<R[]> =>
    (await client.query<R & Record<string, unknown>>(sql, values)).rows;
  const count = async (sql: string): Promise<number> => (await all<{ n: number }>(sql))[0]?.n ?? 0;
  return {
    async state() {
      const [row] = await all<StateRow>(`SELECT * FROM ${S}.review_state WHERE id = 1`);
      if (row === undefined) return undefined;
      return {
        head: { count: Number(row.journal_count), lastHash: row.journal_hash },
        mode: row.mode,
        attemptLimit: Number(row.attempt_limit),
        settings: row.settings,
        counters: countersOf({ ...row, depth: Number(row.depth) }),
        // A queue older than version 5 is read as the migration would leave it: its pre-journal rows counted now.
        preJournal: keepsPreJournal({ ...row })
          ? preJournalOf({ ...row })
          : Object.fromEntries(
              await Promise.all(
                preJournalCountQueries(`${S}.`).map(async ([table, sql]) => [table, Math.max(0, Number(await count(sql)))]),
              ),
            ),
      };
    },
    journal: async (after, limit) =>
      (await all<JournalSqlRow>(`SELECT * FROM ${S}.review_journal WHERE seq > $1 ORDER BY seq LIMIT $2`, [after, limit])).map(
        toJournalRow,
      ),
    async rows(table, after, limit) {
      const read = TABLES[table].read as (row: unknown) => object;
      const found = await all<{ seq: string }>(`SELECT * FROM (${TABLES[table].sql(S)}) t WHERE seq > $1 ORDER BY seq LIMIT $2`, [
        after,
        limit,
      ]);
      return found.map((row) => ({ seq: Number(row.seq), value: read(row) }));
    },
    itemStates: (ids) => all<{ id: string; state: string }>(`SELECT id, state FROM ${S}.review_items WHERE id = ANY($1::text[])`, [ids]),
    unexplainedItem: async () =>
      (
        await all<{ id: string; state: string }>(
          `SELECT id, state FROM ${S}.review_items i WHERE (state = 'decided' AND NOT EXISTS (SELECT 1 FROM ${S}.review_verdicts v WHERE v.item_id = i.id))
            OR (state = 'dropped' AND NOT EXISTS (SELECT 1 FROM ${S}.review_breaker_log b WHERE b.item_id = i.id)) ORDER BY seq LIMIT 1`,
        )
      )[0],
    counts: async () => ({
      depth: await count(`SELECT count(*)::int AS n FROM ${S}.review_items WHERE state = 'open'`),
      verdicts: await count(`SELECT count(*)::int AS n FROM ${S}.review_verdicts`),
      approved: await count(`SELECT count(*)::int AS n FROM ${S}.review_verdicts WHERE decision = 'approve'`),
      dropped: await count(`SELECT count(*)::int AS n FROM ${S}.review_breaker_log`),
      alerts: await count(`SELECT count(*)::int AS n FROM ${S}.review_alerts`),
    }),
  };
}
