import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Ledger } from '../../src/ledger/ledger.js';
import { PostgresLedger } from '../../src/ledger/postgres/postgres-ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import type { ReviewQueueOptions } from '../../src/review/config.js';
import { MemoryReviewQueue } from '../../src/review/memory/memory-review-queue.js';
import { PostgresReviewQueue } from '../../src/review/postgres/postgres-review-queue.js';
import type { ReviewQueue } from '../../src/review/review-queue.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { tempDir } from '../helpers/workspace.js';
import { REVIEW_MIGRATIONS } from '../../src/review/migrations.js';
import { PostgresSchemaPool } from '../helpers/postgres-schema-pool.js';
import { copyMigratedSqlite, migrateReviewSchema } from './recycled-storage.js';

/** The PostgreSQL the suites run against (trust auth); commits skip the WAL flush, durability is not under test. */
export const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test?options=-c%20synchronous_commit%3Doff';

/** A queue on a backend's fresh storage, and how to throw that storage away. */
export interface OpenedQueue {
  readonly queue: ReviewQueue;
  /** SQL backends: another queue on the same file or schema, over its own connection, as another process would open it. */
  readonly reopen?: (options?: ReviewQueueOptions) => Promise<ReviewQueue>;
  /** SQL backends: where the ledger is, as `redline ledger verify --ledger` takes it. */
  readonly location?: string;
  /** SQL backends: the ledger on the same file or schema. */
  readonly openLedger?: () => Promise<Ledger>;
  /** SQL backends: the names of the tables the storage holds. */
  readonly tables?: () => Promise<readonly string[]>;
  /**
   * SQL backends: runs statements on the storage's tables (unqualified names) past the triggers that
   * guard them, as someone with direct access to the database could: for tamper tests.
   */
  readonly tamper?: (statements: string) => Promise<void>;
  /** SQL backends: runs statements on the storage's tables (unqualified names) over an ordinary connection. */
  readonly raw?: (statements: string) => Promise<void>;
  /** Closes every queue opened here and deletes the storage. */
  close(): Promise<void>;
}

/** A queue on storage other cases may have used before: see {@link ReviewBackend.openRecycled}. */
export interface RecycledQueue {
  readonly queue: ReviewQueue;
  /** SQL backends: where the storage is, as `redline ledger verify --ledger` takes it. */
  readonly location?: string;
  /** Closes the queue and hands the storage back (SQLite: deletes its copy). */
  close(): Promise<void>;
}

export interface ReviewBackend {
  readonly name: 'memory' | 'sqlite' | 'postgres';
  /** A queue on fresh storage, created and migrated by this open. */
  open(options?: ReviewQueueOptions): Promise<OpenedQueue>;
  /**
   * A queue on storage in exactly the state a fresh open finds once it has migrated, without paying for
   * the migrations: SQLite, a copy of a file migrated once per process; PostgreSQL, a migrated schema that
   * earlier cases used and that was emptied since (test/review/recycled-storage.test.ts compares the two
   * with fresh storage). For cases that test the queue, not its migrations, a reopen or its tables.
   */
  openRecycled(options?: ReviewQueueOptions): Promise<RecycledQueue>;
  /** Deletes the storage kept for {@link openRecycled}; a later call makes new. */
  dropRecycled(): Promise<void>;
  /** How many random sequences the backpressure property runs against this backend (each on fresh storage). */
  readonly propertyRuns: number;
}

/** Connects to the suites' PostgreSQL, or fails saying what is missing: these suites skip nothing. */
export async function connectPostgres(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `The review suites need PostgreSQL at ${POSTGRES_URL} and skip nothing, but it is not reachable (${(error as Error).message}). Start it and run again.`,
      { cause: error },
    );
  }
  return client;
}

/** A new schema name, `redline_review_<pid>_<random>`. */
export const freshSchema = (): string => `redline_review_${process.pid}_${randomBytes(4).toString('hex')}`;

const memory: ReviewBackend = {
  name: 'memory',
  propertyRuns: 300,
  async open(options) {
    const queue = new MemoryReviewQueue(options);
    return { queue, close: () => queue.close() };
  },
  openRecycled: (options) => memory.open(options),
  dropRecycled: async () => undefined,
};

/** Runs `statements` on a SQLite file over a connection of its own. */
async function execOn(file: string, statements: string): Promise<void> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  try {
    db.exec(statements);
  } finally {
    db.close();
  }
}

const sqlite: ReviewBackend = {
  name: 'sqlite',
  propertyRuns: 100,
  async open(options) {
    const dir = await tempDir('redline-review-');
    const file = path.join(dir, 'redline.db');
    const opened: { close(): Promise<void> }[] = [];
    const track = <T extends { close(): Promise<void> }>(thing: T): T => (opened.push(thing), thing);
    const queue = await SqliteReviewQueue.open({ database: file, synchronous: 'off', ...options }).catch(async (error: unknown) => {
      await rm(dir, { recursive: true, force: true });
      throw error;
    });
    track(queue);
    return {
      queue,
      location: file,
      reopen: async (again = options) => track(await SqliteReviewQueue.open({ database: file, synchronous: 'off', ...again })),
      openLedger: async () => track(await SqliteLedger.open({ database: file, synchronous: 'off' })),
      async tables() {
        const { default: Database } = await import('better-sqlite3');
        const db = new Database(file, { readonly: true });
        try {
          return (
            db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as {
              name: string;
            }[]
          ).map((row) => row.name);
        } finally {
          db.close();
        }
      },
      raw: (statements) => execOn(file, statements),
      // SQLite cannot switch triggers off: drop the queue's guards (review_*_refuse_*) first.
      tamper: async (statements) => tamperSqlite(file, statements),
      async close() {
        for (const thing of opened.reverse()) await thing.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  async openRecycled(options) {
    const dir = await tempDir('redline-review-');
    const file = path.join(dir, 'redline.db');
    try {
      await copyMigratedSqlite(file);
      const queue = await SqliteReviewQueue.open({ database: file, synchronous: 'off', ...options });
      return {
        queue,
        location: file,
        close: () => queue.close().finally(() => rm(dir, { recursive: true, force: true })),
      };
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  },
  // The migrated file goes with the temporary folders when the process exits.
  dropRecycled: async () => undefined,
};

/** Migrated review schemas, emptied between the cases that need only a queue. */
const schemas = new PostgresSchemaPool({
  connect: connectPostgres,
  name: freshSchema,
  migrate: migrateReviewSchema,
  migrationsTable: 'review_migrations',
  latestVersion: Math.max(...REVIEW_MIGRATIONS.map((migration) => migration.version)),
});

const postgres: ReviewBackend = {
  name: 'postgres',
  propertyRuns: 20,
  async open(options) {
    const admin = await connectPostgres();
    const schema = freshSchema();
    const opened: { close(): Promise<void> }[] = [];
    const track = <T extends { close(): Promise<void> }>(thing: T): T => (opened.push(thing), thing);
    try {
      const queue = track(await PostgresReviewQueue.open({ connection: POSTGRES_URL, schema, ...options }));
      return {
        queue,
        location: `${POSTGRES_URL}&schema=${schema}`,
        reopen: async (again = options) => track(await PostgresReviewQueue.open({ connection: POSTGRES_URL, schema, ...again })),
        openLedger: async () => track(await PostgresLedger.open({ connection: POSTGRES_URL, schema })),
        tables: async () =>
          (
            await admin.query<{ name: string }>(
              'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
              [schema],
            )
          ).rows.map((row) => row.name),
        async raw(statements) {
          await admin.query(`SET search_path = "${schema}"`);
          try {
            await admin.query(statements);
          } finally {
            await admin.query('RESET search_path');
          }
        },
        async tamper(statements) {
          await admin.query(
            `BEGIN; SET LOCAL search_path = "${schema}"; SET LOCAL session_replication_role = replica; ${statements}; COMMIT`,
          );
        },
        async close() {
          try {
            for (const thing of opened.reverse()) await thing.close();
            await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          } finally {
            await admin.end();
          }
        },
      };
    } catch (error) {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => admin.end());
      throw error;
    }
  },
  async openRecycled(options) {
    const schema = await schemas.acquire();
    let queue: ReviewQueue;
    try {
      queue = await PostgresReviewQueue.open({ connection: POSTGRES_URL, schema, ...options });
    } catch (error) {
      await schemas.release(schema);
      throw error;
    }
    return {
      queue,
      location: `${POSTGRES_URL}&schema=${schema}`,
      close: () => queue.close().finally(() => schemas.release(schema)),
    };
  },
  dropRecycled: () => schemas.drain(),
};

/** Every backend of the `ReviewQueue` port; the contract suite runs against each. */
export const backends: readonly ReviewBackend[] = [memory, sqlite, postgres];

/** Runs `statements` on the SQLite file past the queue's guards (SQLite cannot switch triggers off: they are dropped). */
export function tamperSqlite(file: string, statements: string): void {
  const db = new Database(file);
  try {
    const guards = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name GLOB 'review_*_refuse_*'")
      .all();
    db.exec(`BEGIN; ${guards.map(({ name }) => `DROP TRIGGER "${name}";`).join(' ')} ${statements}; COMMIT;`);
  } finally {
    db.close();
  }
}
