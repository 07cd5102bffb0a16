import { MissingPeerError } from '../../errors/missing-peer-error.js';

/** The slice of a `pg` Pool the ledger uses; any compatible instance works. */
export interface PgPool {
  query<R = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<{ rows: R[] }>;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
}

export interface PgClient {
  query<R = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<{ rows: R[] }>;
  release(error?: Error | boolean): void;
}

/** Creates a `pg` Pool for a connection URL, loading `pg` only when a PostgreSQL ledger is used. */
export async function openPgPool(connectionString: string, max = 10): Promise<PgPool> {
  const { default: pg } = await MissingPeerError.load(() => import('pg'), { packageName: 'pg', purpose: 'use a postgres:// ledger' });
  return new pg.Pool({ connectionString, max }) as unknown as PgPool;
}

/** Runs `work` in one transaction on one client; rolls back on any error. */
export async function inTransaction<T>(pool: PgPool, work: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
