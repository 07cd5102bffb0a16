import { refuseNewer } from '../refuse-newer.js';
import type { SqliteDatabase } from './sqlite-database.js';

/** A numbered list of migrations and the SQL of each, as the ledger and the review queue keep them. */
export interface MigrationSet {
  /** The table recording applied versions, e.g. `redline_migrations`. */
  readonly table: string;
  readonly migrations: readonly { readonly version: number; readonly name: string }[];
  readonly sql: (version: number) => string;
}

/**
 * Applies the versions not yet recorded and returns them. Call it inside an immediate transaction, so one
 * process migrates.
 */
export function applyMigrations(db: SqliteDatabase, { table, migrations, sql }: MigrationSet): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Set((db.prepare(`SELECT version FROM ${table}`).all() as { version: number }[]).map((row) => row.version));
  refuseNewer(table, applied, migrations);
  const now: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    db.exec(sql(migration.version));
    db.prepare(`INSERT INTO ${table} (version, name, applied_at) VALUES (?, ?, ?)`).run(migration.version, migration.name, Date.now());
    now.push(migration.version);
  }
  return now;
}
