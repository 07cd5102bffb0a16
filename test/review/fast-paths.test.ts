import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import pg from 'pg';
import { chainHash } from '../../src/core/hash-chain.js';
import type { PgPool } from '../../src/db/postgres/pg-pool.js';
import { admit, release, type Backpressure, type QueueMode } from '../../src/review/backpressure.js';
import { resolveReviewOptions, type ReviewConfig } from '../../src/review/config.js';
import { limitChange } from '../../src/review/feedback-tuner.js';
import { journalBody } from '../../src/review/journal.js';
import { postgresFastPaths } from '../../src/review/postgres/fast-paths.js';
import { PostgresReviewQueue } from '../../src/review/postgres/postgres-review-queue.js';
import { briefItem } from '../../src/review/review-item.js';
import type { FastPaths } from '../../src/review/review-store.js';
import { connectPostgres, freshSchema, POSTGRES_URL } from './backends.js';
import { brief } from './fixtures.js';

// The one-statement paths re-state the backpressure and tuner arithmetic in SQL. Each must take exactly
// the cases where the pure policies change nothing beyond the common step (no drop, no mode switch, no
// limit change), and then leave the state the policies compute: random states set straight in the
// state row, the statement run, the outcome compared with `admit`, `release` and `limitChange`.

const RUNS = 150;
const AT = 1_700_000_000_000;

/** Watermarks as any hundredths (0.57 · 100 and its kin included), low below high. */
const backpressure = fc
  .record({
    // Round capacities make whole-number watermarks, where `<` and `<=` part.
    capacity: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom(10, 20, 50, 100)),
    high: fc.integer({ min: 1, max: 100 }),
  })
  .chain(({ capacity, high }) =>
    fc.record({
      capacity: fc.constant(capacity),
      high: fc.constant(high / 100),
      low: fc.integer({ min: 0, max: high - 1 }).map((low) => low / 100),
    }),
  );

/** A depth in [lowest, capacity]: any, or within 2 of a watermark, where the modes switch. */
const depthIn = (policy: Backpressure, lowest: number): fc.Arbitrary<number> =>
  fc
    .oneof(
      fc.integer({ min: lowest, max: policy.capacity }),
      fc
        .tuple(fc.constantFrom(policy.high, policy.low), fc.integer({ min: -2, max: 2 }))
        .map(([fraction, offset]) => Math.round(fraction * policy.capacity) + offset),
    )
    .map((depth) => Math.min(policy.capacity, Math.max(lowest, depth)));

/** Tuner settings with rates in tenths, so an approve rate lands exactly on a bound as often as not. */
const tuner = fc
  .record({
    window: fc.integer({ min: 1, max: 6 }),
    min: fc.integer({ min: 1, max: 5 }),
    span: fc.integer({ min: 0, max: 4 }),
    lower: fc.integer({ min: 0, max: 10 }),
    raise: fc.integer({ min: 0, max: 10 }),
  })
  .map(({ window, min, span, lower, raise }) => ({
    window,
    min,
    max: min + span,
    initial: min,
    lowerBelow: Math.min(lower, raise) / 10,
    raiseAbove: Math.max(lower, raise) / 10,
  }));

describe('PostgreSQL fast paths agree with the pure policies', () => {
  let admin: pg.Client;
  let pool: pg.Pool;
  let queue: PostgresReviewQueue;
  let fast: FastPaths;
  const schema = freshSchema();
  const S = `"${schema}"`;
  let n = 0;

  /** Sets state-row columns past the guards, as the property needs states the queue would reach slowly. */
  const setState = async (columns: Record<string, unknown>): Promise<void> => {
    const names = Object.keys(columns);
    await admin.query('BEGIN');
    await admin.query('SET LOCAL session_replication_role = replica');
    await admin.query(
      `UPDATE ${S}.review_state SET ${names.map((name, i) => `${name} = $${i + 1}`).join(', ')} WHERE id = 1`,
      Object.values(columns),
    );
    await admin.query('COMMIT');
  };
  const state = async (): Promise<{
    depth: number;
    mode: QueueMode;
    attempt_limit: number;
    settings_version: number;
    tuner_ids: string[];
  }> => (await admin.query(`SELECT depth, mode, attempt_limit, settings_version, tuner_ids FROM ${S}.review_state WHERE id = 1`)).rows[0];

  before(async () => {
    admin = await connectPostgres();
    pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    queue = await PostgresReviewQueue.open({ connection: pool as unknown as PgPool, schema });
    fast = postgresFastPaths(pool, S);
  });

  after(async () => {
    await queue.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${S} CASCADE`);
    await admin.end();
    await pool.end();
  });

  it(`enqueue: takes exactly the admissions without a drop or a mode switch (${RUNS} states)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        backpressure.chain((policy) => fc.tuple(fc.constant(policy), depthIn(policy, 0))),
        fc.constantFrom<QueueMode>('normal', 'degraded'),
        fc.boolean(),
        async ([policy, depth], mode, stale) => {
          const { settings_version: version } = await state();
          await setState({ depth, mode });
          const item = briefItem(brief(`enqueue-${++n}`), { id: `item-${n}`, enqueuedAt: AT });
          const taken = await fast.enqueue({ item, policy, settingsVersion: stale ? version + 1 : version });
          const step = admit({ policy, mode, depth, droppable: [], incoming: { priority: 0, seq: n }, at: AT });
          const common = !stale && step.drop === undefined && step.modeChanged === undefined;
          assert.equal(taken !== undefined, common, JSON.stringify({ policy, mode, depth, stale, step }));
          const after = await state();
          assert.deepEqual({ depth: after.depth, mode: after.mode }, common ? { depth: step.depth, mode: step.mode } : { depth, mode });
          if (common) assert.equal(taken, step.mode);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it(`verdict: takes exactly the verdicts without a mode switch or a limit change, and journals them (${RUNS} states)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        backpressure.chain((policy) => fc.tuple(fc.constant(policy), depthIn(policy, 1))),
        tuner,
        fc.constantFrom<QueueMode>('normal', 'degraded'),
        fc.nat(),
        fc.array(fc.boolean(), { maxLength: 8 }),
        fc.boolean(),
        fc.constantFrom<'none' | 'mine' | 'theirs' | 'expired'>('none', 'mine', 'theirs', 'expired'),
        fc.boolean(),
        async ([bp, depth], tune, mode, pickLimit, approvals, approve, claim, stale) => {
          const config: ReviewConfig = resolveReviewOptions({ backpressure: bp, tuner: tune }).config;
          const limit = tune.min + (pickLimit % (tune.max - tune.min + 1));
          const ids = approvals.map((_, i) => `v-${n}-${i}`);
          const { settings_version: version } = await state();
          await setState({ depth, mode, attempt_limit: limit, tuner_ids: ids, tuner_approvals: approvals });
          const item = briefItem(brief(`verdict-${++n}`), { id: `item-${n}`, enqueuedAt: AT });
          const lease = { none: null, mine: AT + 1, theirs: AT + 1, expired: AT }[claim];
          await admin.query(
            `INSERT INTO ${S}.review_items (id, run_id, priority, item, enqueued_at, state, claimed_by, claimed_at, lease_until) VALUES ($1, $2, 0, $3, $4, 'open', $5, $6, $7)`,
            [
              item.id,
              item.runId,
              JSON.stringify(item),
              AT,
              claim === 'none' ? null : claim === 'theirs' ? 'bea' : 'ana',
              claim === 'none' ? null : AT,
              lease,
            ],
          );
          const input = { reviewer: 'ana', decision: approve ? 'approve' : 'reject', label: 'unclear' } as const;
          const verdict = await fast.verdict({
            itemId: item.id,
            input,
            at: AT,
            verdictId: () => `verdict-${n}`,
            config,
            settingsVersion: stale ? version + 1 : version,
          });
          const step = release({ policy: config.backpressure, mode, depth, at: AT });
          const window = [
            ...ids.map((id, i) => ({ id, decision: approvals[i] ? 'approve' : 'reject' }) as const),
            { id: `verdict-${n}`, decision: input.decision },
          ];
          const change = limitChange({ limit, window, policy: config.tuner, at: AT });
          // A window shorter than the tuner's may be missing verdicts: the statement leaves it to the transaction.
          const known = ids.length >= tune.window - 1;
          const common = !stale && claim !== 'theirs' && known && step.modeChanged === undefined && change === undefined;
          assert.equal(verdict !== undefined, common, JSON.stringify({ bp, tune, mode, depth, limit, approvals, approve, claim, stale }));
          const after = await state();
          if (!common) {
            assert.deepEqual({ depth: after.depth, mode: after.mode, limit: after.attempt_limit }, { depth, mode, limit });
            return;
          }
          assert.deepEqual(
            { depth: after.depth, mode: after.mode, limit: after.attempt_limit, window: after.tuner_ids },
            { depth: step.depth, mode: step.mode, limit, window: window.slice(-tune.window).map((v) => v.id) },
          );
          const { rows } = await admin.query(`SELECT * FROM ${S}.review_journal ORDER BY seq DESC LIMIT 1`);
          const row = rows[0] as { seq: string; body: string; prev_hash: string; hash: string };
          assert.equal(row.body, journalBody(Number(row.seq), 'verdict', AT, verdict as object));
          assert.equal(row.hash, chainHash(row.prev_hash, row.body));
        },
      ),
      {
        numRuns: RUNS,
        // On the high watermark after the verdict: the mode holds (the watermark is not exceeded).
        examples: [
          [
            [{ capacity: 10, high: 0.5, low: 0.3 }, 6],
            { window: 1, min: 1, max: 1, initial: 1, lowerBelow: 0.4, raiseAbove: 0.8 },
            'normal',
            0,
            [],
            true,
            'none',
            false,
          ],
        ],
      },
    );
  });
});
