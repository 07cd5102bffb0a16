import type { LedgerDialect } from '../sql-statements.js';

/** The SQLite spelling of the ledger's statements (sql-statements.ts) and of its derived columns (summary-sql.ts). */
export const SQLITE_DIALECT: LedgerDialect = {
  table: (name) => name,
  param: () => '?',
  sealed: (value) => `sealed = ${value ? 1 : 0}`,
  runIdIn: (param) => `run_id IN (SELECT value FROM json_each(${param}))`,
  ids: (runIds) => JSON.stringify(runIds),
  jsonText: (column, path) => `json_extract(${column}, '$.${path.join('.')}')`,
  jsonNumber: (column, path) =>
    `(CASE WHEN json_type(${column}, '$.${path.join('.')}') IN ('integer', 'real') THEN json_extract(${column}, '$.${path.join('.')}') * 1.0 END)`,
};
