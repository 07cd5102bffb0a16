import { inTransaction, type PgClient, type PgPool } from '../db/postgres/pg-pool.js';
import { ANY_MODEL, rateLimit, type RateLimit } from '../limits/rate-limit.js';
import type { LimitStore, RateRequest } from '../limits/rate-limiter.js';
import { fullLevel, settle, takeAll, type BucketLevel, type Governing } from '../limits/token-bucket.js';

interface LimitRow {
  endpoint: string;
  model: string;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  burst_seconds: number;
  requests: number;
  tokens: number;
  level_at: number;
  now: number;
}

const limitOf = (row: LimitRow): RateLimit =>
  rateLimit({
    endpoint: row.endpoint,
    model: row.model,
    requestsPerMinute: row.requests_per_minute ?? undefined,
    tokensPerMinute: row.tokens_per_minute ?? undefined,
    burstSeconds: row.burst_seconds,
  });

/** The server's clock in ms: every worker measures refill by the same clock. */
const NOW = `(extract(epoch FROM clock_timestamp()) * 1000)::float8`;

/**
 * The fleet's rate limits (SPEC §7): one bucket per endpoint and model in PostgreSQL, so every worker on
 * every machine takes from the same allowance. A call locks the rows that govern it (its model's and the
 * endpoint's `*`, in one order, so two calls cannot deadlock), takes from all of them or none, and commits.
 */
export class PgLimitStore implements LimitStore {
  readonly #pool: PgPool;
  readonly #S: string;

  constructor(pool: PgPool, quotedSchema: string) {
    this.#pool = pool;
    this.#S = quotedSchema;
  }

  /** Every limit, by endpoint and model. */
  async limits(): Promise<{ readonly limit: RateLimit; readonly level: BucketLevel }[]> {
    const { rows } = await this.#pool.query<LimitRow>(
      `SELECT *, ${NOW} AS now FROM ${this.#S}.worker_rate_limits ORDER BY endpoint, model`,
    );
    return rows.map((row) => ({ limit: limitOf(row), level: { requests: row.requests, tokens: row.tokens, at: row.level_at } }));
  }

  /** Adds or replaces a limit; a new one starts full, a changed one keeps what its bucket holds. */
  async setLimit(limit: RateLimit): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      const { rows } = await client.query<{ now: number }>(`SELECT ${NOW} AS now`);
      const level = fullLevel(limit, Number(rows[0]?.now));
      await client.query(
        `INSERT INTO ${this.#S}.worker_rate_limits
           (endpoint, model, requests_per_minute, tokens_per_minute, burst_seconds, requests, tokens, level_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (endpoint, model) DO UPDATE SET requests_per_minute = $3, tokens_per_minute = $4, burst_seconds = $5`,
        [
          limit.endpoint,
          limit.model,
          limit.requestsPerMinute ?? null,
          limit.tokensPerMinute ?? null,
          limit.burstSeconds,
          finite(level.requests),
          finite(level.tokens),
          level.at,
        ],
      );
    });
  }

  /** Removes the limit of an endpoint and model; false when there was none. */
  async removeLimit(endpoint: string, model: string = ANY_MODEL): Promise<boolean> {
    const { rows } = await this.#pool.query(
      `DELETE FROM ${this.#S}.worker_rate_limits WHERE endpoint = $1 AND model = $2 RETURNING model`,
      [endpoint, model],
    );
    return rows.length > 0;
  }

  async take(request: RateRequest): Promise<{ taken: true } | { waitMs: number }> {
    return inTransaction(this.#pool, async (client) => {
      const { governing, now } = await this.#lock(client, request);
      if (governing.length === 0) return { taken: true as const };
      const turn = takeAll(governing, request.tokens, now);
      if ('waitMs' in turn) return turn;
      await this.#store(client, governing, turn.levels);
      return { taken: true as const };
    });
  }

  async settle(request: RateRequest, usedTokens: number): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      const { governing, now } = await this.#lock(client, request);
      const levels = governing.map(({ limit, level }) => settle(limit, level, { reserved: request.tokens, used: usedTokens }, now));
      await this.#store(client, governing, levels);
    });
  }

  async #lock(client: PgClient, request: RateRequest): Promise<{ governing: Governing[]; now: number }> {
    const { rows } = await client.query<LimitRow>(
      `SELECT *, ${NOW} AS now FROM ${this.#S}.worker_rate_limits WHERE endpoint = $1 AND model = ANY($2) ORDER BY model FOR UPDATE`,
      [request.endpoint, [...new Set([request.model, ANY_MODEL])]],
    );
    return {
      governing: rows.map((row) => ({ limit: limitOf(row), level: { requests: row.requests, tokens: row.tokens, at: row.level_at } })),
      now: Number(rows[0]?.now ?? 0),
    };
  }

  async #store(client: PgClient, governing: readonly Governing[], levels: readonly BucketLevel[]): Promise<void> {
    for (const [index, { limit }] of governing.entries()) {
      const level = levels[index] as BucketLevel;
      await client.query(
        `UPDATE ${this.#S}.worker_rate_limits SET requests = $3, tokens = $4, level_at = $5 WHERE endpoint = $1 AND model = $2`,
        [limit.endpoint, limit.model, finite(level.requests), finite(level.tokens), level.at],
      );
    }
  }
}

/** An unlimited side of a bucket is stored as 0: only the limited side is ever read. */
function finite(value: number): number {
  return Number.isFinite(value) ? value : 0;
}
