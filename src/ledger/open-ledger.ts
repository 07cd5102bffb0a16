import path from 'node:path';
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

/** Opens a ledger by location: a `postgres://` / `postgresql://` URL, or a SQLite file path. */
export async function openLedger(location: string): Promise<Ledger> {
  if (/^postgres(ql)?:\/\//.test(location)) {
    const { PostgresLedger } = await import('./postgres/postgres-ledger.js');
    const url = new URL(location);
    const schema = url.searchParams.get('schema') ?? undefined;
    url.searchParams.delete('schema');
    return PostgresLedger.open({ connection: url.toString(), ...(schema === null || schema === undefined ? {} : { schema }) });
  }
  const { SqliteLedger } = await import('./sqlite/sqlite-ledger.js');
  return SqliteLedger.open({ database: location });
}

/** A location fit for messages: passwords in URLs are hidden. */
export function displayLocation(location: string): string {
  return location.replace(/(postgres(?:ql)?:\/\/[^:/@]+):[^@]*@/, '$1:***@');
}
