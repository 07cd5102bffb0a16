/** Where a fleet lives: a PostgreSQL server and the schema of its ledger, review queue and worker tables. */
export interface PostgresTarget {
  /** The URL as given (the ledger and the review queue open it, `?schema=` included). */
  readonly location: string;
  /** The URL without `?schema=`, for the connections this folder opens. */
  readonly connection: string;
  /** The ledger's schema. @default 'redline' */
  readonly schema: string;
  /** pg-boss's own schema: `<schema>_jobs`. */
  readonly jobSchema: string;
}

/**
 * Reads a `postgres://` URL (with an optional `?schema=` as the ledger takes it).
 * @throws {TypeError} "Expected a postgres:// URL …" for anything else, or a schema that is no plain name.
 */
export function postgresTarget(location: string): PostgresTarget {
  if (!/^postgres(ql)?:\/\//.test(location))
    throw new TypeError(`Expected a postgres:// URL for --postgres, got ${JSON.stringify(location)}`);
  const url = new URL(location);
  const schema = url.searchParams.get('schema') ?? 'redline';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,50}$/.test(schema))
    throw new TypeError(`Expected a plain schema name (letters, digits, _), got ${JSON.stringify(schema)}`);
  url.searchParams.delete('schema');
  return { location, connection: url.toString(), schema, jobSchema: `${schema}_jobs` };
}
