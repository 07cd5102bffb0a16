import type { LedgerDialect } from '../sql-statements.js';

/** The PostgreSQL spelling of the ledger's statements (sql-statements.ts, summary-sql.ts), on the tables of `schema` (quoted). */
export const postgresDialect = (schema: string): LedgerDialect => ({
  table: (name) => `${schema}.${name}`,
  param: (n) => `$${n}`,
  sealed: (value) => (value ? 'sealed' : 'NOT sealed'),
  runIdIn: (param) => `run_id = ANY(${param}::text[])`,
  ids: (runIds) => runIds,
  jsonText: (column, path) => `((${column})::jsonb #>> '{${path.join(',')}}')`,
  jsonNumber: (column, path) =>
    `(CASE WHEN jsonb_typeof((${column})::jsonb #> '{${path.join(',')}}') = 'number' THEN ((${column})::jsonb #>> '{${path.join(',')}}')::float8 END)`,
});
