import type pg from 'pg';

/** How a {@link PostgresSchemaPool} makes and empties its schemas. */
export interface SchemaPoolOptions {
  /** A new admin connection. */
  readonly connect: () => Promise<pg.Client>;
  /** A new schema name, one the suites' leftover sweep recognises (`redline_<what>_<pid>_<hex>`). */
  readonly name: () => string;
  /** Creates and migrates `schema` as the code under test does when it opens fresh storage. */
  readonly migrate: (admin: pg.Client, schema: string) => Promise<void>;
  /** The table recording the applied migrations: a reset keeps its rows up to `latestVersion`. */
  readonly migrationsTable: string;
  readonly latestVersion: number;
}

/**
 * PostgreSQL schemas holding migrated, empty tables, reused: {@link acquire} hands one out (migrating a new
 * one when none is idle), {@link release} empties it again, {@link drain} drops them all. Creating and
 * migrating a schema, and dropping it, costs the server far more (about 150 ms of CPU for the review
 * queue's) than the few rows a case writes; a case that needs only empty, migrated storage takes one from
 * here. One admin connection does the creating, emptying and dropping, one transaction at a time:
 * concurrent cases must not share one.
 */
export class PostgresSchemaPool {
  readonly #options: SchemaPoolOptions;
  #admin: Promise<pg.Client> | undefined;
  /** The admin connection's last piece of work: the next one starts after it. */
  #turn: Promise<unknown> = Promise.resolve();
  /** Every schema made and not yet dropped, idle or handed out. */
  readonly #made = new Set<string>();
  readonly #idle: string[] = [];
  /** Per schema, the statements that empty it: see {@link release}. */
  readonly #resets = new Map<string, string>();

  constructor(options: SchemaPoolOptions) {
    this.#options = Object.freeze({ ...options });
  }

  /** A migrated, empty schema, for one user at a time until it is released. */
  async acquire(): Promise<string> {
    return this.#idle.pop() ?? this.#serially((admin) => this.#create(admin));
  }

  /**
   * Empties `schema` back to its migrated state and keeps it for the next user: every row of every table
   * but the migrations table deleted past the guards' triggers (replica role), every identity restarted. A
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
    const { name, migrate, migrationsTable, latestVersion } = this.#options;
    const schema = name();
    this.#made.add(schema);
    try {
      await migrate(admin, schema);
      const tables = await admin.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> $2",
        [schema, migrationsTable],
      );
      const sequences = await admin.query<{ name: string; start: string }>(
        'SELECT sequencename AS name, start_value AS start FROM pg_sequences WHERE schemaname = $1',
        [schema],
      );
      this.#resets.set(
        schema,
        [
          ...tables.rows.map(({ name }) => `DELETE FROM "${schema}"."${name}";`),
          `DELETE FROM "${schema}"."${migrationsTable}" WHERE version > ${latestVersion};`,
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
      this.#admin ??= this.#options.connect();
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
