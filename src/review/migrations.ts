/**
 * The schema versions every SQL review queue applies, in order, tracked in `review_migrations` next to
 * the ledger's own tables. Each backend holds its SQL for the same versions (`sqlite/migrations.ts`,
 * `postgres/migrations.ts`); a test keeps the lists equal.
 */
export const REVIEW_MIGRATIONS = [
  { version: 1, name: 'review queue: state, items, circuit-breaker log, verdicts, mode and limit changes, run reports, alerts' },
  { version: 2, name: 'review queue: hash-chained journal, settings stored with the queue' },
  { version: 3, name: 'review queue: verdicts, logs, alerts and decided or dropped items final (refusing triggers)' },
  { version: 4, name: 'review queue: running counters in the state row, live-claim and drop indexes, a dropped item stored once' },
  { version: 5, name: 'review queue: rows recorded before the journal existed, counted per table in the state row' },
  { version: 6, name: 'review queue: named reviewers, each with the hash of their sign-in token' },
  { version: 7, name: 'review queue: journal entries signed with the ledger key' },
] as const;

export type ReviewMigrationVersion = (typeof REVIEW_MIGRATIONS)[number]['version'];
