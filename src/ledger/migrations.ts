/**
 * The schema versions every ledger backend applies, in order. Each backend holds its own SQL for the
 * same versions (`sqlite/migrations.ts`, `postgres/migrations.ts`); a test keeps the lists equal.
 */
export const MIGRATIONS = [
  { version: 1, name: 'runs, hash-chained records, append-only and seal triggers' },
  { version: 2, name: 'adaptive priors per task type' },
  { version: 3, name: 'runs indexed in start order, for streams read in keyset pages' },
  { version: 4, name: 'records in a rowid table (SQLite; PostgreSQL unchanged)' },
  { version: 5, name: 'plan hash and resolved run per run, indexed for linked runs and same-plan refusals' },
  { version: 6, name: 'runs indexed by mission, outcome and task type in start order, for pages of runs' },
  { version: 7, name: 'guards, shadow verdict and spend per sealed run and the scored attempts, derived at the seal for the tally' },
] as const;

export type MigrationVersion = (typeof MIGRATIONS)[number]['version'];
