import { applyMigrations as applyPostgresMigrations } from '../../src/db/postgres/apply-migrations.js';
import { applyMigrations as applySqliteMigrations } from '../../src/db/sqlite/apply-migrations.js';
import { immediate, openSqlite } from '../../src/db/sqlite/sqlite-database.js';
import { REVIEW_MIGRATIONS } from '../../src/review/migrations.js';
import { POSTGRES_REVIEW_MIGRATIONS } from '../../src/review/postgres/migrations.js';
import { SQLITE_REVIEW_MIGRATIONS } from '../../src/review/sqlite/migrations.js';
import type pg from 'pg';
import { sqliteTemplate } from '../helpers/sqlite-template.js';

// Storage for the review cases that need only a queue: what a fresh open finds once it has migrated (the
// review_migrations rows and empty tables), made once and handed out again. The queue's own open still
// runs on it: migrations found applied, the state row seeded, the settings journaled.
// test/review/recycled-storage.test.ts compares a dump of it, opened, with a fresh storage's.

/** A copy of a SQLite file migrated once per process, as `SqliteReviewQueue.open` migrates a new file (8 KB pages, WAL). */
export const copyMigratedSqlite = sqliteTemplate(async (file) => {
  const db = await openSqlite(file, 'off', (opened) => opened);
  try {
    immediate(db, () =>
      applySqliteMigrations(db, {
        table: 'review_migrations',
        migrations: REVIEW_MIGRATIONS,
        sql: (version) => SQLITE_REVIEW_MIGRATIONS[version as keyof typeof SQLITE_REVIEW_MIGRATIONS],
      }),
    );
  } finally {
    db.close();
  }
});

/** Creates and migrates `schema` as `PostgresReviewQueue.open` migrates a new one. */
export async function migrateReviewSchema(admin: pg.Client, schema: string): Promise<void> {
  await admin.query('BEGIN');
  await applyPostgresMigrations(admin, schema, `"${schema}"`, {
    table: 'review_migrations',
    migrations: REVIEW_MIGRATIONS,
    sql: (version, quoted) => POSTGRES_REVIEW_MIGRATIONS[version as keyof typeof POSTGRES_REVIEW_MIGRATIONS](quoted),
  });
  await admin.query('COMMIT');
}
