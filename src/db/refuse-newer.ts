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
