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
] as const;

export type MigrationVersion = (typeof MIGRATIONS)[number]['version'];

/**
 * Refuses a database migrated by a newer redline: its processes write what this code does not know (a
 * journal entry, a column), so running both against it would break the records quietly.
 */
export function refuseNewer(table: string, applied: ReadonlySet<number>, migrations: readonly { readonly version: number }[]): void {
  const known = Math.max(...migrations.map((migration) => migration.version));
  const newer = [...applied].filter((version) => version > known);
  if (newer.length > 0) {
    throw new Error(
      `The database holds schema version ${Math.max(...newer)} in ${table}, newer than this redline knows (${known}): upgrade redline in every process that uses it`,
    );
  }
}
