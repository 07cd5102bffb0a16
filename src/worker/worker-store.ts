import { applyMigrations } from '../db/postgres/apply-migrations.js';
import { inTransaction, openPgPool, type PgPool } from '../db/postgres/pg-pool.js';
import { PgLimitStore } from './pg-limit-store.js';
import type { PostgresTarget } from './postgres-target.js';
import { parseSubmission, type Submission } from './submission.js';
import { WORKER_MIGRATIONS } from './worker-migrations.js';

/** Blobs read per round trip. */
const BLOB_PAGE = 256;

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

  /** Stores blobs by their hash; one another submission stored first is kept as it is. */
  async putBlobs(blobs: readonly { readonly hash: string; readonly bytes: Uint8Array }[]): Promise<void> {
    if (blobs.length === 0) return;
    await this.#pool.query(
      `INSERT INTO ${this.#S}.worker_blobs (hash, bytes) SELECT * FROM UNNEST($1::text[], $2::bytea[]) ON CONFLICT (hash) DO NOTHING`,
      [blobs.map((blob) => blob.hash), blobs.map((blob) => Buffer.from(blob.bytes))],
    );
  }

  /** The bytes of `hashes`, read in pages; a hash the store lacks is absent from the map. */
  async blobs(hashes: readonly string[]): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    for (let start = 0; start < hashes.length; start += BLOB_PAGE) {
      const page = hashes.slice(start, start + BLOB_PAGE);
      const { rows } = await this.#pool.query<{ hash: string; bytes: Buffer }>(
        `SELECT hash, bytes FROM ${this.#S}.worker_blobs WHERE hash = ANY($1)`,
        [page],
      );
      for (const row of rows) found.set(row.hash, row.bytes);
    }
    return found;
  }

  async putSubmission(submission: Submission): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${this.#S}.worker_submissions (id, mission_id, mission, manifest, manifest_hash, root_mode, proposer, submitted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        submission.id,
        submission.missionId,
        JSON.stringify(submission.mission),
        JSON.stringify(submission.manifest),
        submission.manifestHash,
        submission.rootMode,
        submission.proposer ?? null,
        submission.submittedAt,
      ],
    );
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
