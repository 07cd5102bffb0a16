import { applyMigrations } from '../../db/postgres/apply-migrations.js';
import { inTransaction, openPgPool, type PgPool } from '../../db/postgres/pg-pool.js';
import { ChainedLedger } from '../chained-ledger.js';
import { MIGRATIONS, type MigrationVersion } from '../migrations.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { PostgresLedgerStore } from './postgres-ledger-store.js';
import { postgresPriorsStore } from './postgres-priors-store.js';

export interface PostgresLedgerOptions {
  /** A connection URL (`postgres://…`), a `pg` Pool, or a factory for one. */
  readonly connection: string | PgPool | (() => PgPool | Promise<PgPool>);
  /** Schema holding the ledger's tables; created when missing. @default 'redline' */
  readonly schema?: string;
}

const quote = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;

/**
 * The team ledger: PostgreSQL, hash-chained records, seal and append-only enforced by triggers. The one
 * chained ledger over the PostgreSQL store and priors; this class only opens them.
 */
export class PostgresLedger extends ChainedLedger {
  private constructor(pool: PgPool, owned: boolean, schema: string) {
    super(new PostgresLedgerStore(pool, owned, quote(schema)), postgresPriorsStore(pool, quote(schema)));
  }

  /** Connects to (and migrates) a PostgreSQL ledger. */
  static async open({ connection, schema = 'redline' }: PostgresLedgerOptions): Promise<PostgresLedger> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new TypeError(`Expected a plain schema name (letters, digits, _), got "${schema}"`);
    const owned = typeof connection === 'string';
    const pool =
      typeof connection === 'string' ? await openPgPool(connection) : typeof connection === 'function' ? await connection() : connection;
    try {
      await migrate(pool, schema);
    } catch (error) {
      if (owned) await pool.end();
      throw error;
    }
    return new PostgresLedger(pool, owned, schema);
  }
}

async function migrate(pool: PgPool, schema: string): Promise<void> {
  const S = quote(schema);
  await inTransaction(pool, async (client) => {
    await applyMigrations(client, schema, S, {
      table: 'redline_migrations',
      migrations: MIGRATIONS,
      sql: (version, quoted) => POSTGRES_MIGRATIONS[version as MigrationVersion](quoted),
    });
  });
}
