import Database from 'better-sqlite3';
import type pg from 'pg';

// Dumps of a storage's whole state, to prove two storages alike (test/*/recycled-storage.test.ts).

/** Everything a storage holds: settings, schema, rows. Migration times (the wall clock of the migrating process) left out. */
export type Dump = Record<string, unknown>;

/** Rows as sorted JSON lines: the order a table returns them in is not part of its state. */
const sortedRows = (rows: readonly Record<string, unknown>[], table: string): string[] =>
  rows
    .map((row) => {
      const { applied_at: _appliedAt, ...kept } = row;
      return JSON.stringify(table.endsWith('_migrations') ? kept : row, (_key, value: unknown) =>
        typeof value === 'bigint' ? String(value) : value,
      );
    })
    .sort();

export function dumpSqlite(file: string): Dump {
  const db = new Database(file, { readonly: true });
  try {
    const pragmas = Object.fromEntries(
      ['page_size', 'journal_mode', 'user_version', 'application_id', 'auto_vacuum', 'encoding'].map((name) => [
        name,
        db.pragma(name, { simple: true }),
      ]),
    );
    const schema = db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all();
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map(({ name }) => name);
    const rows = Object.fromEntries(
      tables.map((table) => [table, sortedRows(db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[], table)]),
    );
    return { pragmas, schema, rows };
  } finally {
    db.close();
  }
}

export async function dumpPostgres(schema: string, connect: () => Promise<pg.Client>): Promise<Dump> {
  const admin = await connect();
  try {
    const query = async (sql: string): Promise<unknown[]> => (await admin.query(sql, [schema])).rows;
    const catalog = {
      columns: await query(
        'SELECT table_name, column_name, data_type, column_default, is_nullable, is_identity, identity_start FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position',
      ),
      constraints: await query(
        'SELECT conname, conrelid::regclass::text AS relation, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = $1::regnamespace ORDER BY 2, 1',
      ),
      indexes: await query('SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname'),
      triggers: await query(
        'SELECT tgname, tgenabled, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal AND tgrelid IN (SELECT oid FROM pg_class WHERE relnamespace = $1::regnamespace) ORDER BY 3',
      ),
      functions: await query('SELECT proname, prosrc FROM pg_proc WHERE pronamespace = $1::regnamespace ORDER BY 1, 2'),
      // last_value is NULL until a sequence is first used: the next identity is its start again.
      sequences: await query('SELECT sequencename, start_value, last_value FROM pg_sequences WHERE schemaname = $1 ORDER BY sequencename'),
    };
    const tables = (
      await admin.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY 1",
        [schema],
      )
    ).rows.map(({ name }) => name);
    const rows: Record<string, string[]> = {};
    for (const table of tables) rows[table] = sortedRows((await admin.query(`SELECT * FROM "${schema}"."${table}"`)).rows, table);
    // Each storage has its own schema name: the dumps compare with it replaced.
    return JSON.parse(JSON.stringify({ catalog, rows }).replaceAll(schema, 'S')) as Dump;
  } finally {
    await admin.end();
  }
}
