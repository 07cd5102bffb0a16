import type { MigrationSet } from '../db/postgres/apply-migrations.js';

/**
 * The fleet's tables beside the ledger's: content-addressed blobs (stored in parts, so neither side holds a
 * whole large file), submissions (signed by their submitter; refused ones say why),
 * the workers' live counts, and the endpoints' rate limits.
 */
export const WORKER_MIGRATIONS: MigrationSet = {
  table: 'worker_migrations',
  migrations: [
    { version: 1, name: 'blobs, submissions, fleet' },
    { version: 2, name: 'rate limits' },
    { version: 3, name: 'blobs in parts, signed and refused submissions' },
  ],
  sql: (version, S) =>
    version === 3
      ? `
    CREATE TABLE ${S}.worker_blob_parts (
      hash TEXT NOT NULL,
      part INTEGER NOT NULL,
      bytes BYTEA NOT NULL,
      PRIMARY KEY (hash, part)
    );
    INSERT INTO ${S}.worker_blob_parts (hash, part, bytes) SELECT hash, 0, bytes FROM ${S}.worker_blobs;
    ALTER TABLE ${S}.worker_blobs ADD COLUMN size BIGINT;
    UPDATE ${S}.worker_blobs SET size = length(bytes);
    ALTER TABLE ${S}.worker_blobs DROP COLUMN bytes;
    ALTER TABLE ${S}.worker_blobs ALTER COLUMN size SET NOT NULL;
    ALTER TABLE ${S}.worker_submissions
      ADD COLUMN key_id TEXT,
      ADD COLUMN signature TEXT,
      ADD COLUMN refused_at BIGINT,
      ADD COLUMN refused_reason TEXT;`
      : version === 2
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
