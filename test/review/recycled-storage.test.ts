import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { ReviewQueue } from '../../src/review/review-queue.js';
import { backends, connectPostgres, POSTGRES_URL, type ReviewBackend } from './backends.js';
import { brief, testRuntime } from './fixtures.js';

// The contract runs most of its cases on recycled storage (backends.ts, recycled-storage.ts): these
// tests prove that a queue cannot tell it from fresh storage, after a case left a row in every table.

/** Everything a queue's storage holds: settings, schema, rows. Migration times (the wall clock of the migrating process) left out. */
type Dump = Record<string, unknown>;

const SETTINGS = { backpressure: { capacity: 4, high: 0.5, low: 0.3 }, alerts: { threshold: 0.5, window: 2 }, tuner: { window: 2 } };

/** Rows as sorted JSON lines: the order a table returns them in is not part of its state. */
const sortedRows = (rows: readonly Record<string, unknown>[], table: string): string[] =>
  rows
    .map((row) => {
      const { applied_at: _appliedAt, ...kept } = row;
      return JSON.stringify(table === 'review_migrations' ? kept : row, (_key, value: unknown) =>
        typeof value === 'bigint' ? String(value) : value,
      );
    })
    .sort();

function dumpSqlite(file: string): Dump {
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

async function dumpPostgres(location: string): Promise<Dump> {
  const schema = new URL(location).searchParams.get('schema') ?? '';
  const admin = await connectPostgres();
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

/** Leaves a row in every table the queue keeps: items queued, claimed, decided and dropped, logs, alerts, reviewers, rules, an admission. */
async function fillEveryTable(queue: ReviewQueue): Promise<void> {
  for (const [runId, priority] of [
    ['a', 1],
    ['b', 1],
    ['c', 0],
    ['d', 1],
    ['e', 2],
  ] as const)
    await queue.enqueue(brief(runId, { priority }), { tags: ['sampled'] });
  const approve = { reviewer: 'ana', decision: 'approve', label: 'unclear' } as const;
  for (const entry of (await queue.list()).slice(1)) await queue.verdict(entry.item.id, approve);
  await queue.claim('bo');
  await queue.recordRun({ runId: 'r1', budgetCapped: true });
  await queue.recordRun({ runId: 'r2', budgetCapped: true });
  await queue.recordAlertDelivery((await queue.alerts())[0]?.id ?? '', { origin: 'http://127.0.0.1:9', ok: true, status: 200, at: 1 });
  await queue.addReviewer('cy', 'a'.repeat(64));
  await queue.addFilterRule({ label: 'code_error', match: { taskType: 'x' }, by: 'ana' });
  await queue.recordAdmission({
    runId: 'r1',
    by: 'ana',
    overrides: [{ code: 'admit.not_approved', reason: 'sampled and not approved by a reviewer' }],
    mode: 'patch',
    into: '/tmp/r1.diff',
  });
}

const dumpOf = (backend: ReviewBackend, location: string | undefined): Promise<Dump> | Dump =>
  backend.name === 'sqlite' ? dumpSqlite(location ?? '') : dumpPostgres(location ?? `${POSTGRES_URL}&schema=`);

for (const backend of backends.filter((each) => each.name !== 'memory')) {
  describe(`recycled review storage: ${backend.name}`, () => {
    after(() => backend.dropRecycled());

    it('opens as fresh storage opens, even after a case left a row in every table', async () => {
      const fresh = await backend.open(testRuntime().options(SETTINGS));
      let expected: Dump;
      try {
        expected = await dumpOf(backend, fresh.location);
      } finally {
        await fresh.close();
      }

      const used = await backend.openRecycled(testRuntime().options(SETTINGS));
      try {
        await fillEveryTable(used.queue);
        const filled = (await dumpOf(backend, used.location)).rows as Record<string, unknown[]>;
        assert.deepEqual(
          Object.keys(filled).filter((table) => filled[table]?.length === 0),
          [],
          'every table holds a row before the storage goes back',
        );
      } finally {
        await used.close();
      }

      const again = await backend.openRecycled(testRuntime().options(SETTINGS));
      try {
        // PostgreSQL hands the emptied schema out again; SQLite copies the migrated file anew.
        if (backend.name === 'postgres') assert.equal(again.location, used.location, 'the same schema, reused');
        assert.deepEqual(await dumpOf(backend, again.location), expected);
      } finally {
        await again.close();
      }
    });
  });
}
