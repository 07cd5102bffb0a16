import { MissingPeerError } from '../../errors/missing-peer-error.js';
import { LedgerUnreachableError } from '../../errors/ledger-unreachable-error.js';

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

/**
 * Creates a `pg` Pool for a connection URL, loading `pg` only when a PostgreSQL ledger is used, and makes
 * its first connection at once: a server that cannot be reached (or refuses the login) is one
 * {@link LedgerUnreachableError} naming it, not a driver error at the first query.
 */
export async function openPgPool(connectionString: string, max = 10): Promise<PgPool> {
  const { default: pg } = await MissingPeerError.load(() => import('pg'), { packageName: 'pg', purpose: 'use a postgres:// ledger' });
  const pool = new pg.Pool({ connectionString, max }) as unknown as PgPool;
  try {
    (await pool.connect()).release();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new LedgerUnreachableError({ server: serverOf(connectionString), reason: reasonOf(error), cause: error });
  }
  return pool;
}

/** `host:port/database` of a connection URL, without user or password. */
function serverOf(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${decodeURIComponent(url.hostname) || 'localhost'}:${url.port || '5432'}${url.pathname === '/' ? '' : decodeURIComponent(url.pathname)}`;
  } catch {
    return 'the configured server';
  }
}

/** The driver's reason on one line; a failure on every address of a host (AggregateError) has no message of its own. */
function reasonOf(error: unknown): string {
  const { message, code, errors } = error as { message?: string; code?: string; errors?: { message?: string }[] };
  const text =
    message !== undefined && message !== ''
      ? message
      : (errors ?? [])
          .map((item) => item.message)
          .filter(Boolean)
          .join('; ') ||
        code ||
        String(error);
  return text.split('\n')[0] ?? text;
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
