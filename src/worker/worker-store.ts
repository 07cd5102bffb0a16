import { applyMigrations } from '../db/postgres/apply-migrations.js';
import { inTransaction, openPgPool, type PgPool } from '../db/postgres/pg-pool.js';
import { PgLimitStore } from './pg-limit-store.js';
import type { PostgresTarget } from './postgres-target.js';
import { parseSubmission, type Submission } from './submission.js';
import { WORKER_MIGRATIONS } from './worker-migrations.js';

/** Small blobs read per round trip. */
const BLOB_PAGE = 256;

/** A blob is stored (and read back) in parts of this many bytes: neither side holds a whole large file. */
export const BLOB_PART_BYTES = 1024 * 1024;

/** One worker's line in the fleet table, as `redline status` shows it. */
export interface FleetRow {
  readonly workerId: string;
  readonly host: string;
  readonly pid: number;
  /** `running`, `draining` (SIGTERM: no new work) or `stopped`. */
  readonly state: string;
  readonly concurrency: number;
  readonly running: number;
  /** Runs finished by this worker, per outcome, and `failures` (runs it could not finish). */
  readonly counts: Readonly<Record<string, number>>;
  readonly note?: string;
  readonly seenAt: number;
}

/**
 * The fleet's storage beside the ledger (same server, same schema): content-addressed workspace blobs
 * shared by every submission, the submissions, each worker's live counts, and the endpoints' rate limits.
 */
export class WorkerStore {
  readonly #pool: PgPool;
  readonly #S: string;
  /** The endpoints' rate limits every worker shares (`redline limits`). */
  readonly limits: PgLimitStore;

  private constructor(pool: PgPool, schema: string) {
    this.#pool = pool;
    this.#S = `"${schema}"`;
    this.limits = new PgLimitStore(pool, this.#S);
  }

  /** Opens a pool of `connections` on the target and applies the worker tables' migrations. */
  static async open(target: PostgresTarget, { connections = 4 }: { connections?: number } = {}): Promise<WorkerStore> {
    const pool = await openPgPool(target.connection, connections);
    try {
      await inTransaction(pool, (client) => applyMigrations(client, target.schema, `"${target.schema}"`, WORKER_MIGRATIONS));
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new WorkerStore(pool, target.schema);
  }

  /** Which of `hashes` the store holds already. */
  async heldBlobs(hashes: readonly string[]): Promise<Set<string>> {
    const { rows } = await this.#pool.query<{ hash: string }>(`SELECT hash FROM ${this.#S}.worker_blobs WHERE hash = ANY($1)`, [hashes]);
    return new Set(rows.map((row) => row.hash));
  }

  /**
   * Stores small blobs (at most {@link BLOB_PART_BYTES} each, one part apiece) by their hash, in one
   * transaction; one another submission stored first is kept as it is.
   */
  async putBlobs(blobs: readonly { readonly hash: string; readonly bytes: Uint8Array }[]): Promise<void> {
    if (blobs.length === 0) return;
    await inTransaction(this.#pool, async (client) => {
      const { rows } = await client.query<{ hash: string }>(
        `INSERT INTO ${this.#S}.worker_blobs (hash, size) SELECT * FROM UNNEST($1::text[], $2::bigint[]) ON CONFLICT (hash) DO NOTHING RETURNING hash`,
        [blobs.map((blob) => blob.hash), blobs.map((blob) => blob.bytes.length)],
      );
      const added = new Set(rows.map((row) => row.hash));
      const parts = blobs.filter((blob) => added.has(blob.hash));
      if (parts.length === 0) return;
      await client.query(
        `INSERT INTO ${this.#S}.worker_blob_parts (hash, part, bytes) SELECT hash, 0, bytes FROM UNNEST($1::text[], $2::bytea[]) AS t (hash, bytes)`,
        [parts.map((blob) => blob.hash), parts.map((blob) => Buffer.from(blob.bytes.buffer, blob.bytes.byteOffset, blob.bytes.length))],
      );
    });
  }

  /**
   * Stores one blob part by part as `parts` yields them, in one transaction: a blob is held whole or not
   * at all (an error thrown by `parts`, such as bytes that do not match the hash, stores nothing). Only
   * one part is in memory at a time. False when the store held the blob already (another submission's).
   */
  async putBlob(hash: string, size: number, parts: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<boolean> {
    return inTransaction(this.#pool, async (client) => {
      // The marker first: a submitter storing the same blob at this moment waits for this transaction.
      const { rows } = await client.query(
        `INSERT INTO ${this.#S}.worker_blobs (hash, size) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING RETURNING hash`,
        [hash, size],
      );
      if (rows.length === 0) return false;
      let part = 0;
      for await (const bytes of parts) {
        await client.query(`INSERT INTO ${this.#S}.worker_blob_parts (hash, part, bytes) VALUES ($1, $2, $3)`, [
          hash,
          part,
          Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length),
        ]);
        part += 1;
      }
      return true;
    });
  }

  /**
   * The first part of each of `hashes`, read in pages of {@link BLOB_PAGE}: the whole bytes of a small
   * blob (checked against its hash by the reader). A hash the store lacks is absent from the map.
   */
  async blobs(hashes: readonly string[]): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    for (let start = 0; start < hashes.length; start += BLOB_PAGE) {
      const page = hashes.slice(start, start + BLOB_PAGE);
      const { rows } = await this.#pool.query<{ hash: string; bytes: Buffer }>(
        `SELECT hash, bytes FROM ${this.#S}.worker_blob_parts WHERE hash = ANY($1) AND part = 0`,
        [page],
      );
      for (const row of rows) found.set(row.hash, row.bytes);
    }
    return found;
  }

  /** One blob's bytes, part by part (one part in memory at a time); nothing for a blob the store lacks. */
  async *blobParts(hash: string): AsyncGenerator<Buffer> {
    for (let part = 0; ; part += 1) {
      const { rows } = await this.#pool.query<{ bytes: Buffer }>(
        `SELECT bytes FROM ${this.#S}.worker_blob_parts WHERE hash = $1 AND part = $2`,
        [hash, part],
      );
      const row = rows[0];
      if (row === undefined) return;
      yield row.bytes;
    }
  }

  async putSubmission(submission: Submission): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${this.#S}.worker_submissions (id, mission_id, mission, manifest, manifest_hash, root_mode, proposer, submitted_at, key_id, signature)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        submission.id,
        submission.missionId,
        JSON.stringify(submission.mission),
        JSON.stringify(submission.manifest),
        submission.manifestHash,
        submission.rootMode,
        submission.proposer ?? null,
        submission.submittedAt,
        submission.signature?.keyId ?? null,
        submission.signature?.value ?? null,
      ],
    );
  }

  /** Marks a submission a worker refused to run, with the reason (`redline status` shows it). */
  async refuse(id: string, reason: string, at: number): Promise<void> {
    await this.#pool.query(`UPDATE ${this.#S}.worker_submissions SET refused_at = $2, refused_reason = $3 WHERE id = $1`, [id, at, reason]);
  }

  /** The submissions workers refused, most recent first. */
  async refused(limit = 20): Promise<{ id: string; missionId: string; reason: string; at: number }[]> {
    const { rows } = await this.#pool.query<{ id: string; mission_id: string; refused_reason: string; refused_at: string }>(
      `SELECT id, mission_id, refused_reason, refused_at FROM ${this.#S}.worker_submissions WHERE refused_at IS NOT NULL ORDER BY refused_at DESC LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({ id: row.id, missionId: row.mission_id, reason: row.refused_reason, at: Number(row.refused_at) }));
  }

  /** The submission `id`, parsed (its manifest and mission are untrusted until the worker checks them). */
  async submission(id: string): Promise<Submission | undefined> {
    const { rows } = await this.#pool.query(`SELECT * FROM ${this.#S}.worker_submissions WHERE id = $1`, [id]);
    return rows[0] === undefined ? undefined : parseSubmission(rows[0]);
  }

  /** How many submissions there are. */
  async submissionCount(): Promise<number> {
    const { rows } = await this.#pool.query<{ count: string }>(`SELECT count(*) AS count FROM ${this.#S}.worker_submissions`);
    return Number(rows[0]?.count ?? 0);
  }

  /** How many submissions workers refused. */
  async refusedCount(): Promise<number> {
    const { rows } = await this.#pool.query<{ count: string }>(
      `SELECT count(*) AS count FROM ${this.#S}.worker_submissions WHERE refused_at IS NOT NULL`,
    );
    return Number(rows[0]?.count ?? 0);
  }

  /** Writes one worker's line of the fleet table. */
  async report(row: FleetRow): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${this.#S}.worker_fleet (worker_id, host, pid, state, concurrency, running, counts, note, seen_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (worker_id) DO UPDATE SET state = $4, concurrency = $5, running = $6, counts = $7, note = $8, seen_at = $9`,
      [row.workerId, row.host, row.pid, row.state, row.concurrency, row.running, JSON.stringify(row.counts), row.note ?? null, row.seenAt],
    );
  }

  /** Every worker's line, most recently seen first. */
  async fleet(): Promise<FleetRow[]> {
    const { rows } = await this.#pool.query<Record<string, unknown>>(`SELECT * FROM ${this.#S}.worker_fleet ORDER BY seen_at DESC`);
    return rows.map((row) => ({
      workerId: String(row.worker_id),
      host: String(row.host),
      pid: Number(row.pid),
      state: String(row.state),
      concurrency: Number(row.concurrency),
      running: Number(row.running),
      counts: (row.counts ?? {}) as Record<string, number>,
      ...(typeof row.note === 'string' ? { note: row.note } : {}),
      seenAt: Number(row.seen_at),
    }));
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
