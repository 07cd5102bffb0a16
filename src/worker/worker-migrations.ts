import type { MigrationSet } from '../db/postgres/apply-migrations.js';

/** The fleet's tables beside the ledger's: content-addressed blobs, submissions, the workers' live counts, and the endpoints' rate limits. */
export const WORKER_MIGRATIONS: MigrationSet = {
  table: 'worker_migrations',
  migrations: [
    { version: 1, name: 'blobs, submissions, fleet' },
    { version: 2, name: 'rate limits' },
  ],
  sql: (version, S) =>
    version === 2
      ? `
    CREATE TABLE ${S}.worker_rate_limits (
      endpoint TEXT NOT NULL,
      model TEXT NOT NULL,
      requests_per_minute DOUBLE PRECISION,
      tokens_per_minute DOUBLE PRECISION,
      burst_seconds DOUBLE PRECISION NOT NULL,
      requests DOUBLE PRECISION NOT NULL,
      tokens DOUBLE PRECISION NOT NULL,
      level_at DOUBLE PRECISION NOT NULL,
      PRIMARY KEY (endpoint, model)
    );`
      : `
    CREATE TABLE ${S}.worker_blobs (hash TEXT PRIMARY KEY, bytes BYTEA NOT NULL);
    CREATE TABLE ${S}.worker_submissions (
      id TEXT PRIMARY KEY,
      mission_id TEXT NOT NULL,
      mission JSONB NOT NULL,
      manifest JSONB NOT NULL,
      manifest_hash TEXT NOT NULL,
      root_mode INTEGER NOT NULL,
      proposer TEXT,
      submitted_at BIGINT NOT NULL
    );
    CREATE TABLE ${S}.worker_fleet (
      worker_id TEXT PRIMARY KEY,
      host TEXT NOT NULL,
      pid INTEGER NOT NULL,
      state TEXT NOT NULL,
      concurrency INTEGER NOT NULL,
      running INTEGER NOT NULL,
      counts JSONB NOT NULL,
      note TEXT,
      seen_at BIGINT NOT NULL
    );`,
};
