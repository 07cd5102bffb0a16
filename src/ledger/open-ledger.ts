import { stat } from 'node:fs/promises';
import path from 'node:path';
import { LedgerNotFoundError } from '../errors/ledger-not-found-error.js';
import type { Ledger } from './ledger.js';

/** Environment variable naming the ledger when `--ledger` is not given. */
export const LEDGER_ENV = 'REDLINE_LEDGER';

/** The embedded default: `.redline/redline.db` under `dir`. */
export function defaultLedgerPath(dir: string): string {
  return path.join(dir, '.redline', 'redline.db');
}

/** Where the ledger is: an explicit location, else `$REDLINE_LEDGER`, else the default under `dir`. */
export function ledgerLocation(explicit: string | undefined, dir: string): string {
  return explicit ?? process.env[LEDGER_ENV] ?? defaultLedgerPath(dir);
}

/** Whether a location names a PostgreSQL ledger (else it is a SQLite file path). */
export const isPostgres = (location: string): boolean => /^postgres(ql)?:\/\//.test(location);

/**
 * Opens a ledger by location: a `postgres://` / `postgresql://` URL, or a SQLite file path. With
 * `readOnly`, a SQLite ledger must exist (`LedgerNotFoundError`) and is opened read-only, unmigrated.
 * A PostgreSQL server that cannot be reached is a `LedgerUnreachableError`.
 */
export async function openLedger(location: string, { readOnly = false }: { readOnly?: boolean } = {}): Promise<Ledger> {
  if (isPostgres(location)) {
    const { PostgresLedger } = await import('./postgres/postgres-ledger.js');
    const url = new URL(location);
    const schema = url.searchParams.get('schema') ?? undefined;
    url.searchParams.delete('schema');
    return PostgresLedger.open({ connection: url.toString(), ...(schema === null || schema === undefined ? {} : { schema }) });
  }
  const { SqliteLedger } = await import('./sqlite/sqlite-ledger.js');
  return SqliteLedger.open({ database: location, readOnly });
}

/** Refuses a SQLite location with no file (`LedgerNotFoundError`), for commands that only read what is there. */
export async function expectLedgerAt(location: string): Promise<void> {
  if (isPostgres(location)) return;
  if (
    !(await stat(location).then(
      (info) => info.isFile(),
      () => false,
    ))
  )
    throw new LedgerNotFoundError({ path: location });
}

/** A location fit for messages: passwords in URLs are hidden. */
export function displayLocation(location: string): string {
  return location.replace(/(postgres(?:ql)?:\/\/[^:/@]+):[^@]*@/, '$1:***@');
}
