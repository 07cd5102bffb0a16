import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openSqliteFile, type SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import type { Ledger, StoredRecord } from '../../src/ledger/ledger.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { PostgresLedger } from '../../src/ledger/postgres/postgres-ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { MIGRATIONS } from '../../src/ledger/migrations.js';
import { PostgresSchemaPool } from '../helpers/postgres-schema-pool.js';
import { sqliteTemplate } from '../helpers/sqlite-template.js';
import { tempDir } from '../helpers/workspace.js';

/**
 * The PostgreSQL the suites run against (trust auth). Every connection turns `synchronous_commit` off:
 * durability across a server crash is not under test, and commits get much cheaper.
 */
export const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test?options=-c%20synchronous_commit%3Doff';

export type SqlBackendName = 'sqlite' | 'postgres';

/** A column of `runs` derived from the records that raw access may overwrite. */
export type DerivedColumn = 'outcome' | 'guards' | 'shadow' | 'cost_usd';

/** A column of `records` that raw access may overwrite. */
export type RawColumn = 'body' | 'hash' | 'prev_hash';

/**
 * Direct SQL on the stored rows over its own connection, bypassing the adapter: what someone with access
 * to the database can do. Every edit must hit the rows it names, or it throws (a raw edit that matches
 * nothing is a broken test, not a tamper).
 */
export interface RawAccess {
  /** Inserts a row as given; the database's own constraints and triggers decide whether it goes in. */
  insert(row: StoredRecord): Promise<void>;
  updateColumn(runId: string, seq: number, column: RawColumn, value: string): Promise<void>;
  delete(runId: string, seq: number): Promise<void>;
  /** Overwrites a column a seal derived on a run's row (guards off first: the row of a sealed run is final). */
  updateRun(runId: string, column: DerivedColumn, value: string | number): Promise<void>;
  /** Overwrites the score a seal copied from one attempt into `scores`. */
  updateScore(runId: string, seq: number, score: number): Promise<void>;
  /** Exchanges every column of two rows but `run_id` and `seq`. */
  swap(runId: string, seqA: number, seqB: number): Promise<void>;
  /**
   * Switches off what stops an attacker with direct access, for the rest of this storage's life.
   * PostgreSQL: `session_replication_role = replica` on the raw connection only, which skips every
   * trigger for it while the adapter's connections keep them. SQLite has no per-connection switch, so
   * the refusing triggers (`records_refuse_*`, `runs_refuse_*`) are dropped from the file; the
   * bookkeeping trigger `records_advance_head` stays, because the SQLite adapter relies on it to keep
   * each run row's count and last hash, and runs written after this must still be written correctly.
   */
  disableGuards(): Promise<void>;
}

/** A ledger open on a backend's fresh storage, and how to throw that storage away. */
export interface OpenedLedger {
  readonly ledger: Ledger;
  /** Closes the ledger (and raw access) and deletes the storage. */
  close(): Promise<void>;
}

export interface OpenedSqlLedger extends OpenedLedger {
  readonly raw: RawAccess;
  /** Opens another ledger on the same file or schema, over its own connection, as another process would. */
  reopen(): Promise<Ledger>;
}

/** A place for a ledger that nothing has created yet: a SQLite file path or a PostgreSQL schema name. */
export interface Storage {
  /** What {@link openLedgerAt} takes, in this process or another. */
  readonly location: string;
  /** Deletes whatever was created at the location. */
  dispose(): Promise<void>;
}

/** Opening a ledger on storage that other cases may have used before. */
interface Recycling {
  /**
   * A ledger on storage in exactly the state a fresh open leaves it, without paying for the migrations:
   * SQLite, a copy of a file migrated once per process; PostgreSQL, a migrated schema that earlier cases
   * used and that was emptied since (test/ledger/recycled-storage.test.ts compares the two with fresh
   * storage). For cases that test the ledger, not its migrations, a reopen or raw access.
   */
  openRecycled(): Promise<OpenedLedger>;
  /** Deletes the storage kept for {@link openRecycled}; a later call makes new. */
  dropRecycled(): Promise<void>;
}

export interface MemoryBackend extends Recycling {
  readonly name: 'memory';
  open(): Promise<OpenedLedger>;
}

export interface SqlBackend extends Recycling {
  readonly name: SqlBackendName;
  open(): Promise<OpenedSqlLedger>;
  storage(): Promise<Storage>;
  /** {@link openRecycled}, with where the storage is, as {@link openLedgerAt} takes it. */
  openRecycled(): Promise<OpenedLedger & { readonly location: string }>;
}

export type Backend = MemoryBackend | SqlBackend;

/** Opens fresh storage, hands it to `work` and always closes (and deletes) it. */
export async function withLedger<T extends OpenedLedger>(open: () => Promise<T>, work: (opened: T) => Promise<void>): Promise<void> {
  const opened = await open();
  try {
    await work(opened);
  } finally {
    await opened.close();
  }
}

/** Opens (and migrates) the ledger at a location from {@link SqlBackend.storage}. */
export function openLedgerAt(name: SqlBackendName, location: string): Promise<Ledger> {
  return name === 'sqlite'
    ? SqliteLedger.open({ database: location, synchronous: 'off' })
    : PostgresLedger.open({ connection: POSTGRES_URL, schema: location });
}

/** Direct SQL on storage no ledger has opened: the SQLite file, or a PostgreSQL client and the schema's quoted name. */
export interface DirectWriters {
  sqlite(db: SqliteDatabase): void;
  postgres(client: pg.Client, quotedSchema: string): Promise<void>;
}

/**
 * Writes the storage at `location` as an earlier release left it, over a connection of its own that is
 * closed afterwards.
 */
export async function writeDirectly(name: SqlBackendName, location: string, writers: DirectWriters): Promise<void> {
  if (name === 'sqlite') {
    const db = await openSqliteFile(location);
    try {
      writers.sqlite(db);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await writers.postgres(client, `"${location}"`);
  } finally {
    await client.end();
  }
}

/** The arguments test/fixtures/ledger/open-ledger-in.mjs takes to open the same ledger as {@link openLedgerAt}, in a plain node child. */
export function childLocationArgs(name: SqlBackendName, location: string): string[] {
  return name === 'sqlite' ? [location] : [POSTGRES_URL, location];
}

function expectChanged(what: string, changed: number | null, expected: number): void {
  if (changed !== expected) throw new Error(`raw ${what} changed ${changed} rows, expected ${expected}`);
}

function sqliteRaw(db: Database.Database): RawAccess {
  const select = db.prepare<[string, number], { type: string; body: string; prev_hash: string; hash: string }>(
    'SELECT type, body, prev_hash, hash FROM records WHERE run_id = ? AND seq = ?',
  );
  const overwrite = db.prepare('UPDATE records SET type = ?, body = ?, prev_hash = ?, hash = ? WHERE run_id = ? AND seq = ?');
  return {
    async insert(row) {
      db.prepare('INSERT INTO records (run_id, seq, type, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)').run(
        row.runId,
        row.seq,
        row.type,
        row.body,
        row.prevHash,
        row.hash,
      );
    },
    async updateColumn(runId, seq, column, value) {
      expectChanged(
        `update of ${column}`,
        db.prepare(`UPDATE records SET ${column} = ? WHERE run_id = ? AND seq = ?`).run(value, runId, seq).changes,
        1,
      );
    },
    async updateRun(runId, column, value) {
      expectChanged(`update of ${column}`, db.prepare(`UPDATE runs SET ${column} = ? WHERE run_id = ?`).run(value, runId).changes, 1);
    },
    async updateScore(runId, seq, score) {
      expectChanged(
        'update of a score',
        db.prepare('UPDATE scores SET score = ? WHERE run_id = ? AND seq = ?').run(score, runId, seq).changes,
        1,
      );
    },
    async delete(runId, seq) {
      expectChanged('delete', db.prepare('DELETE FROM records WHERE run_id = ? AND seq = ?').run(runId, seq).changes, 1);
    },
    async swap(runId, seqA, seqB) {
      db.transaction(() => {
        const [a, b] = [select.get(runId, seqA), select.get(runId, seqB)];
        if (a === undefined || b === undefined) throw new Error(`raw swap: run ${runId} has no record ${a === undefined ? seqA : seqB}`);
        expectChanged(
          'swap',
          overwrite.run(b.type, b.body, b.prev_hash, b.hash, runId, seqA).changes +
            overwrite.run(a.type, a.body, a.prev_hash, a.hash, runId, seqB).changes,
          2,
        );
      })();
    },
    async disableGuards() {
      const triggers = db
        .prepare<[], { name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'trigger' AND (name GLOB 'records_refuse_*' OR name GLOB 'runs_refuse_*')",
        )
        .all();
      for (const { name } of triggers) db.exec(`DROP TRIGGER "${name}"`);
    },
  };
}

function postgresRaw(client: pg.Client, schema: string): RawAccess {
  const table = `"${schema}".records`;
  const run = async (what: string, sql: string, values: unknown[], expected: number): Promise<void> =>
    expectChanged(what, (await client.query(sql, values)).rowCount, expected);
  return {
    insert: (row) =>
      run(
        'insert',
        `INSERT INTO ${table} (run_id, seq, type, body, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6)`,
        [row.runId, row.seq, row.type, row.body, row.prevHash, row.hash],
        1,
      ),
    updateColumn: (runId, seq, column, value) =>
      run(`update of ${column}`, `UPDATE ${table} SET ${column} = $1 WHERE run_id = $2 AND seq = $3`, [value, runId, seq], 1),
    updateRun: (runId, column, value) =>
      run(`update of ${column}`, `UPDATE "${schema}".runs SET ${column} = $1 WHERE run_id = $2`, [value, runId], 1),
    updateScore: (runId, seq, score) =>
      run('update of a score', `UPDATE "${schema}".scores SET score = $1 WHERE run_id = $2 AND seq = $3`, [score, runId, seq], 1),
    delete: (runId, seq) => run('delete', `DELETE FROM ${table} WHERE run_id = $1 AND seq = $2`, [runId, seq], 1),
    // One statement: `other` is read from the snapshot taken before the update, so the two rows trade places.
    swap: (runId, seqA, seqB) =>
      run(
        'swap',
        `UPDATE ${table} AS mine SET type = other.type, body = other.body, prev_hash = other.prev_hash, hash = other.hash
         FROM ${table} AS other
         WHERE mine.run_id = $1 AND other.run_id = $1 AND ((mine.seq = $2 AND other.seq = $3) OR (mine.seq = $3 AND other.seq = $2))`,
        [runId, seqA, seqB],
        2,
      ),
    disableGuards: async () => {
      await client.query('SET session_replication_role = replica');
    },
  };
}

/** Connects to the suites' PostgreSQL, or fails saying what is missing: these suites skip nothing. */
export async function connectPostgres(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `The ledger suites need PostgreSQL at ${POSTGRES_URL} and skip nothing, but it is not reachable (${(error as Error).message}). Start it and run again.`,
      { cause: error },
    );
  }
  return client;
}

const memoryBackend: MemoryBackend = {
  name: 'memory',
  async open() {
    const ledger = new MemoryLedger();
    return { ledger, close: () => ledger.close() };
  },
  openRecycled: () => memoryBackend.open(),
  dropRecycled: async () => undefined,
};

/** A new SQLite file in its own temporary folder. */
async function sqliteStorage(): Promise<Storage> {
  const dir = await tempDir('redline-ledger-');
  return { location: path.join(dir, 'ledger.db'), dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** A new schema `redline_test_<pid>_<random>`, dropped with everything in it. */
async function postgresStorage(): Promise<Storage> {
  const admin = await connectPostgres();
  const schema = `redline_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  return {
    location: schema,
    async dispose() {
      try {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** Opens the ledger on new storage; the storage goes away again if the ledger cannot open. */
async function openOn(name: SqlBackendName, storage: Storage): Promise<Ledger> {
  try {
    return await openLedgerAt(name, storage.location);
  } catch (error) {
    await storage.dispose();
    throw error;
  }
}

/** A copy of a ledger file made once per process by the ledger's own open. */
const copyMigratedSqlite = sqliteTemplate(async (file) => (await openLedgerAt('sqlite', file)).close());

/** Ledger schemas migrated by the ledger's own open, emptied between the cases that need only a ledger. */
const schemas = new PostgresSchemaPool({
  connect: connectPostgres,
  name: () => `redline_test_${process.pid}_${randomBytes(4).toString('hex')}`,
  migrate: async (_admin, schema) => (await openLedgerAt('postgres', schema)).close(),
  migrationsTable: 'redline_migrations',
  latestVersion: Math.max(...MIGRATIONS.map((migration) => migration.version)),
});

const sqliteBackend: SqlBackend = {
  name: 'sqlite',
  storage: sqliteStorage,
  async open() {
    const storage = await sqliteStorage();
    const ledger = await openOn('sqlite', storage);
    const db = new Database(storage.location);
    db.pragma('synchronous = OFF');
    return {
      ledger,
      raw: sqliteRaw(db),
      reopen: () => openLedgerAt('sqlite', storage.location),
      async close() {
        await ledger.close();
        db.close();
        await storage.dispose();
      },
    };
  },
  async openRecycled() {
    const dir = await tempDir('redline-ledger-');
    const location = path.join(dir, 'ledger.db');
    try {
      await copyMigratedSqlite(location);
      const ledger = await openLedgerAt('sqlite', location);
      return { ledger, location, close: () => ledger.close().finally(() => rm(dir, { recursive: true, force: true })) };
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  },
  // The migrated file goes with the temporary folders when the process exits.
  dropRecycled: async () => undefined,
};

const postgresBackend: SqlBackend = {
  name: 'postgres',
  storage: postgresStorage,
  async open() {
    const storage = await postgresStorage();
    const ledger = await openOn('postgres', storage);
    const client = await connectPostgres();
    return {
      ledger,
      raw: postgresRaw(client, storage.location),
      reopen: () => openLedgerAt('postgres', storage.location),
      async close() {
        await ledger.close();
        await client.end();
        await storage.dispose();
      },
    };
  },
  async openRecycled() {
    const location = await schemas.acquire();
    let ledger: Ledger;
    try {
      ledger = await openLedgerAt('postgres', location);
    } catch (error) {
      await schemas.release(location);
      throw error;
    }
    return { ledger, location, close: () => ledger.close().finally(() => schemas.release(location)) };
  },
  dropRecycled: () => schemas.drain(),
};

export const sqlBackends: readonly SqlBackend[] = [sqliteBackend, postgresBackend];

/** Every backend of the `Ledger` port; the contract suite runs against each. */
export const backends: readonly Backend[] = [memoryBackend, ...sqlBackends];
