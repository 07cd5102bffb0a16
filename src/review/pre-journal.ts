import type { JournalType } from './journal-entries.js';

/** The tables the journal proves row by row, each read in its own order (`seq`). */
export type ProvenTable = 'review_verdicts' | 'review_breaker_log' | 'review_alerts' | 'review_mode_changes' | 'review_limit_changes';

/**
 * Rows of each proven table recorded before the queue had a journal (a queue created before schema
 * version 2): counted once, by the migration to schema version 5, and kept in the state row.
 */
export type PreJournalRows = Readonly<Record<ProvenTable, number>>;

/** Each proven table with the journal entries that record its rows and what one row is called. */
export const PRE_JOURNAL: readonly (readonly [ProvenTable, JournalType, string])[] = [
  ['review_verdicts', 'verdict', 'verdict'],
  ['review_breaker_log', 'drop', 'dropped item'],
  ['review_alerts', 'alert', 'alert'],
  ['review_mode_changes', 'mode_change', 'mode change'],
  ['review_limit_changes', 'limit_change', 'limit change'],
];

/** The state row's column counting `table`'s rows from before the journal, e.g. `prejournal_verdicts`. */
export const preJournalColumn = (table: ProvenTable): string => `prejournal_${table.slice('review_'.length)}`;

/** The pre-journal counts a state row (read whole) keeps: none before schema version 5. */
export function preJournalOf(row: Readonly<Record<string, unknown>>): Partial<PreJournalRows> {
  const counts: Partial<Record<ProvenTable, number>> = {};
  for (const [table] of PRE_JOURNAL) {
    const value = row[preJournalColumn(table)];
    if (value !== undefined && value !== null) counts[table] = Number(value);
  }
  return counts;
}

/**
 * Per proven table, the query counting its rows beyond the journal's entries of their kind (`S` the
 * schema prefix, e.g. `"redline".`): what the migration to schema version 5 fixes in the state row, and
 * what verification counts itself in a queue of an older version it reads without migrating. The count
 * can come out negative (a table missing rows): the caller clamps it at 0, as the migration does.
 */
export function preJournalCountQueries(S = ''): [ProvenTable, string][] {
  return PRE_JOURNAL.map(([table, type]) => [
    table,
    `SELECT (SELECT count(*) FROM ${S}${table}) - (SELECT count(*) FROM ${S}review_journal WHERE type = '${type}') AS n`,
  ]);
}

/** Whether a state row (read whole) is of schema version 5 or later, which keeps the pre-journal counts. */
export const keepsPreJournal = (row: Readonly<Record<string, unknown>>): boolean => preJournalColumn('review_verdicts') in row;

/**
 * What `redline ledger verify` says of a queue's rows from before its journal, one line per table that
 * holds any, e.g. "10 verdicts recorded before the journal, not covered by it".
 */
export function preJournalNotes(counts: Partial<PreJournalRows> | undefined): string[] {
  return PRE_JOURNAL.flatMap(([table, , noun]) => {
    const count = counts?.[table] ?? 0;
    return count === 0 ? [] : [`${count} ${noun}${count === 1 ? '' : 's'} recorded before the journal, not covered by it`];
  });
}
