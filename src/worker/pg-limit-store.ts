import { inTransaction, type PgPool } from '../db/postgres/pg-pool.js';
import { ANY_MODEL, rateLimit, type RateLimit } from '../limits/rate-limit.js';
import type { LimitStore, RateRequest } from '../limits/rate-limiter.js';
import { fullLevel, type BucketLevel } from '../limits/token-bucket.js';

interface LimitRow {
  endpoint: string;
  model: string;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  burst_seconds: number;
  requests: number;
  tokens: number;
  level_at: number;
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
 * The fleet's rate limits (docs/workers.md, 'Rate limits, shared by the fleet'): one bucket per endpoint and model in PostgreSQL, so every worker on
 * every machine takes from the same allowance. A call takes from every row that governs it (its model's
 * and the endpoint's `*`) or from none, in one statement: the contract suite holds it to the in-memory
 * store's arithmetic.
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
    const { rows } = await this.#pool.query<LimitRow>(`SELECT * FROM ${this.#S}.worker_rate_limits ORDER BY endpoint, model`);
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
    const { rows } = await this.#pool.query<{ wait_ms: number }>(
      `WITH ${this.#levels('$3')},
       wait AS (
         SELECT COALESCE(MAX(GREATEST(
           CASE WHEN r < 1 THEN (1 - r) * 60000 / rpm ELSE 0 END,
           CASE WHEN t < need THEN (need - t) * 60000 / tpm ELSE 0 END)), 0) AS ms
         FROM levels
       ),
       taken AS (
         UPDATE ${this.#S}.worker_rate_limits l
         SET requests = COALESCE(levels.r - 1, 0), tokens = COALESCE(levels.t - levels.need, 0), level_at = levels.at
         FROM levels, wait
         WHERE wait.ms = 0 AND l.endpoint = levels.endpoint AND l.model = levels.model
         RETURNING 1
       )
       SELECT (SELECT ms FROM wait)::float8 AS wait_ms, (SELECT count(*) FROM taken) AS taken`,
      [request.endpoint, governingModels(request), request.tokens],
    );
    const waitMs = Number(rows[0]?.wait_ms ?? 0);
    return waitMs > 0 ? { waitMs: Math.ceil(waitMs) } : { taken: true };
  }

  async settle(request: RateRequest, usedTokens: number): Promise<void> {
    await this.#pool.query(
      `WITH ${this.#levels('$3')}
       UPDATE ${this.#S}.worker_rate_limits l
       SET requests = COALESCE(levels.r, 0), tokens = COALESCE(LEAST(levels.tcap, levels.t + levels.need - $4), 0), level_at = levels.at
       FROM levels
       WHERE l.endpoint = levels.endpoint AND l.model = levels.model`,
      [request.endpoint, governingModels(request), request.tokens, usedTokens],
    );
  }

  /**
   * The `levels` CTE: the rows that govern a call (`$1` endpoint, `$2` models), locked in one order (two
   * calls cannot deadlock), refilled to the server's clock — the arithmetic of `token-bucket.ts`, in one
   * statement so that a hot row is locked only while it runs. An unlimited side is NULL. `tokens` is the
   * parameter holding the call's tokens, counted at most at the bucket's capacity (`need`).
   */
  #levels(tokens: string): string {
    const elapsed = `GREATEST(0, clock.now - l.level_at)`;
    const rcap = `GREATEST(1, l.requests_per_minute * l.burst_seconds / 60)`;
    const tcap = `GREATEST(1, l.tokens_per_minute * l.burst_seconds / 60)`;
    // A bucket's level is not worth a WAL flush: the commit does not wait for one (a database crash may
    // forget the last few milliseconds of takes), so a hot row is locked for the statement alone.
    return `clock AS (SELECT ${NOW} AS now FROM (SELECT set_config('synchronous_commit', 'off', true)) AS unflushed),
       levels AS (
         SELECT l.endpoint, l.model, l.requests_per_minute AS rpm, l.tokens_per_minute AS tpm,
           GREATEST(l.level_at, clock.now) AS at,
           LEAST(${rcap}, l.requests + l.requests_per_minute * ${elapsed} / 60000) AS r,
           LEAST(${tcap}, l.tokens + l.tokens_per_minute * ${elapsed} / 60000) AS t,
           ${tcap} AS tcap,
           LEAST(${tokens}::float8, ${tcap}) AS need
         FROM ${this.#S}.worker_rate_limits l CROSS JOIN clock
         WHERE l.endpoint = $1 AND l.model = ANY($2)
         ORDER BY l.model
         FOR UPDATE OF l
       )`;
  }
}

/** The models whose limits govern a call: its own and the endpoint's `*`. */
const governingModels = (request: RateRequest): string[] => [...new Set([request.model, ANY_MODEL])];

/** An unlimited side of a bucket is stored as 0: only the limited side is ever read. */
function finite(value: number): number {
  return Number.isFinite(value) ? value : 0;
}
