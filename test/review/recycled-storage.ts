import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { applyMigrations as applyPostgresMigrations } from '../../src/db/postgres/apply-migrations.js';
import { applyMigrations as applySqliteMigrations } from '../../src/db/sqlite/apply-migrations.js';
import { immediate, openSqlite } from '../../src/db/sqlite/sqlite-database.js';
import { REVIEW_MIGRATIONS } from '../../src/review/migrations.js';
import { POSTGRES_REVIEW_MIGRATIONS } from '../../src/review/postgres/migrations.js';
import { SQLITE_REVIEW_MIGRATIONS } from '../../src/review/sqlite/migrations.js';
import { tempDir } from '../helpers/workspace.js';

// Storage for the cases that need only a queue: what a fresh open finds once it has migrated (the
// review_migrations rows and empty tables), made once and handed out again. Creating and migrating
// storage costs a case more than its own work: a SQLite file's seven migrations and WAL switch, and a
// PostgreSQL schema's DDL (about 150 ms of server CPU to create and drop). The queue's own open still
// runs on it: migrations found applied, the state row seeded, the settings journaled.
// test/review/recycled-storage.test.ts compares a dump of this storage, opened, with a fresh one's.

/** The review migrations, as `SqliteReviewQueue.open` applies them. */
const SQLITE_MIGRATIONS = {
  table: 'review_migrations',
  migrations: REVIEW_MIGRATIONS,
  sql: (version: number) => SQLITE_REVIEW_MIGRATIONS[version as keyof typeof SQLITE_REVIEW_MIGRATIONS],
};

/** The review migrations, as `PostgresReviewQueue.open` applies them. */
const POSTGRES_MIGRATIONS = {
  table: 'review_migrations',
  migrations: REVIEW_MIGRATIONS,
  sql: (version: number, quoted: string) => POSTGRES_REVIEW_MIGRATIONS[version as keyof typeof POSTGRES_REVIEW_MIGRATIONS](quoted),
};

let sqliteTemplate: Promise<string> | undefined;

/**
 * A migrated, empty SQLite file, made once per process in a temporary folder (removed when the process
 * exits). Opened the way the queue opens a file (8 KB pages, WAL) and closed again: closing the last
 * connection checkpoints the WAL into the file and deletes it, so the file alone is the whole database.
 */
function migratedSqliteFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const file = path.join(await tempDir('redline-review-template-'), 'template.db');
    const db = await openSqlite(file, 'off', (opened) => opened);
    try {
      immediate(db, () => applySqliteMigrations(db, SQLITE_MIGRATIONS));
    } finally {
      db.close();
    }
    return file;
  })();
  return sqliteTemplate;
}

/** A copy of the migrated template at `file`: a SQLite file as a fresh open leaves it once it has migrated. */
export async function copyMigratedSqlite(file: string): Promise<void> {
  await copyFile(await migratedSqliteFile(), file);
}

/**
 * PostgreSQL schemas holding the review queue's migrated, empty tables, reused: {@link acquire} hands one
 * out (migrating a new one when none is idle), {@link release} empties it again, {@link drain} drops
 * them all. One admin connection does the creating, emptying and dropping, one transaction at a time:
 * concurrent cases must not share one.
 */
export class PostgresSchemaPool {
  readonly #connect: () => Promise<pg.Client>;
  readonly #name: () => string;
  #admin: Promise<pg.Client> | undefined;
  /** The admin connection's last piece of work: the next one starts after it. */
  #turn: Promise<unknown> = Promise.resolve();
  /** Every schema made and not yet dropped, idle or handed out. */
  readonly #made = new Set<string>();
  readonly #idle: string[] = [];
  /** Per schema, the statements that empty it: see {@link release}. */
  readonly #resets = new Map<string, string>();

  constructor({ connect, name }: { connect: () => Promise<pg.Client>; name: () => string }) {
    this.#connect = connect;
    this.#name = name;
  }

  /** A migrated, empty schema, for one user at a time until it is released. */
  async acquire(): Promise<string> {
    return this.#idle.pop() ?? this.#serially((admin) => this.#create(admin));
  }

  /**
   * Empties `schema` back to its migrated state and keeps it for the next user: every row of every table
   * but review_migrations deleted past the guards' triggers (replica role), every identity restarted. A
   * DELETE of the few rows a case writes costs the server a fraction of a TRUNCATE, which makes new files
   * for each table and index. A schema that cannot be emptied is dropped instead. Everything that used it
   * must be closed.
   */
  async release(schema: string): Promise<void> {
    const reset = this.#resets.get(schema) ?? '';
    await this.#serially(async (admin) => {
      try {
        await admin.query(`BEGIN; SET LOCAL session_replication_role = replica; ${reset} COMMIT`);
        this.#idle.push(schema);
      } catch (error) {
        await admin.query('ROLLBACK').catch(() => undefined);
        await this.#drop(admin, schema);
        throw error;
      }
    });
  }

  /** Drops every schema this pool made, and closes its connection. */
  async drain(): Promise<void> {
    if (this.#admin === undefined) return;
    await this.#serially(async (admin) => {
      this.#admin = undefined;
      this.#idle.length = 0;
      try {
        for (const schema of [...this.#made]) await this.#drop(admin, schema);
      } finally {
        await admin.end();
      }
    });
  }

  async #create(admin: pg.Client): Promise<string> {
    const schema = this.#name();
    this.#made.add(schema);
    try {
      await admin.query('BEGIN');
      await applyPostgresMigrations(admin, schema, `"${schema}"`, POSTGRES_MIGRATIONS);
      await admin.query('COMMIT');
      const tables = await admin.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_name <> 'review_migrations'",
        [schema],
      );
      const sequences = await admin.query<{ name: string; start: string }>(
        'SELECT sequencename AS name, start_value AS start FROM pg_sequences WHERE schemaname = $1',
        [schema],
      );
      this.#resets.set(
        schema,
        [
          ...tables.rows.map(({ name }) => `DELETE FROM "${schema}"."${name}";`),
          `DELETE FROM "${schema}".review_migrations WHERE version > ${REVIEW_MIGRATIONS.length};`,
          ...sequences.rows.map(({ name, start }) => `SELECT setval('"${schema}"."${name}"', ${start}, false);`),
        ].join(' '),
      );
      return schema;
    } catch (error) {
      await admin.query('ROLLBACK').catch(() => undefined);
      await this.#drop(admin, schema);
      throw error;
    }
  }

  /** Runs `work` on the admin connection (made on first use) once every earlier piece of work is done. */
  #serially<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
    const result = this.#turn.then(async () => {
      this.#admin ??= this.#connect();
      return work(await this.#admin);
    });
    this.#turn = result.catch(() => undefined);
    return result;
  }

  async #drop(admin: pg.Client, schema: string): Promise<void> {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    this.#made.delete(schema);
    this.#resets.delete(schema);
  }
}
