import { refuseNewer } from '../refuse-newer.js';
import type { PgClient } from './pg-pool.js';

/** A numbered list of migrations and the SQL of each (given the quoted schema), as the ledger and the review queue keep them. */
export interface MigrationSet {
  /** The table recording applied versions, e.g. `redline_migrations`. */
  readonly table: string;
  readonly migrations: readonly { readonly version: number; readonly name: string }[];
  readonly sql: (version: number, schema: string) => string;
}

/**
 * Creates the schema and applies the versions not yet recorded, inside the caller's transaction. A
 * transaction-scoped advisory lock on the schema's name lets one migrator at a time (ledger or queue) in,
 * so two first opens do not race on CREATE SCHEMA.
 */
export async function applyMigrations(
  client: Pick<PgClient, 'query'>,
  schema: string,
  quoted: string,
  { table, migrations, sql }: MigrationSet,
): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`redline.migrate.${schema}`]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${quoted}.${table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
  );
  const applied = new Set(
    (await client.query<{ version: number }>(`SELECT version FROM ${quoted}.${table}`)).rows.map((row) => row.version),
  );
  refuseNewer(table, applied, migrations);
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    await client.query(sql(migration.version, quoted));
    await client.query(`INSERT INTO ${quoted}.${table} (version, name, applied_at) VALUES ($1, $2, $3)`, [
      migration.version,
      migration.name,
      Date.now(),
    ]);
  }
}
