import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { PgPool } from '../../src/db/postgres/pg-pool.js';
import { limitChange, TUNER } from '../../src/review/feedback-tuner.js';
import { parseJournalEntry } from '../../src/review/journal-entries.js';
import { PostgresReviewQueue } from '../../src/review/postgres/postgres-review-queue.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { connectPostgres, freshSchema, POSTGRES_URL } from './backends.js';
import { brief } from './fixtures.js';
import { tempDir } from '../helpers/workspace.js';

// Enough for every reviewer to race the others hundreds of times; the count adds time, not contention.
const ITEMS = 600;
const REVIEWERS = 8;
const PRODUCERS = 2;
const ABANDONED = 5;
const SHORT_LEASE_MS = 300;

describe('PostgreSQL review queue under concurrency', () => {
  it(`${REVIEWERS} reviewers on their own connections decide ${ITEMS} items, each claimed once, none lost`, async (t) => {
    const admin = await connectPostgres();
    const schema = freshSchema();
    const pools: pg.Pool[] = [];
    // Every queue gets its own pool of one connection: as separate processes would.
    const open = async (): Promise<PostgresReviewQueue> => {
      const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
      pools.push(pool);
      return PostgresReviewQueue.open({ connection: pool as unknown as PgPool, schema, backpressure: { capacity: ITEMS } });
    };
    try {
      const queues = {
        producers: await Promise.all(Array.from({ length: PRODUCERS }, open)),
        reviewers: await Promise.all(Array.from({ length: REVIEWERS }, open)),
        quitter: await open(),
      };
      const started = performance.now();
      let produced = 0;
      const producing = Promise.all(
        queues.producers.map(async (queue, p) => {
          for (let n = p; n < ITEMS; n += PRODUCERS) {
            const { item } = await queue.enqueue(brief(`run-${n}`, { priority: n % 7 }));
            assert.ok(item, `run-${n} was dropped`);
            produced += 1;
          }
        }),
      );
      // A reviewer that claims a few items and walks away: their leases run out and others take them. On a
      // slow machine a lease may run out while the quitter still claims, and it takes that item again: a set.
      const abandoned = new Set<string>();
      while (abandoned.size < ABANDONED) {
        const entry = await queues.quitter.claim('quitter', { leaseMs: SHORT_LEASE_MS });
        if (entry === undefined) await sleep(1);
        else abandoned.add(entry.item.id);
      }
      const claimedBy = await Promise.all(
        queues.reviewers.map(async (queue, r) => {
          const reviewer = `reviewer-${r}`;
          const claimed: string[] = [];
          for (;;) {
            const entry = await queue.claim(reviewer, { leaseMs: 60_000 });
            if (entry === undefined) {
              if (produced === ITEMS && (await queue.depth()) === 0) return claimed;
              await sleep(20);
              continue;
            }
            claimed.push(entry.item.id);
            await queue.verdict(entry.item.id, {
              reviewer,
              decision: entry.item.priority % 2 === 0 ? 'approve' : 'reject',
              label: 'unclear',
            });
          }
        }),
      );
      await producing;
      const seconds = (performance.now() - started) / 1000;

      const all = claimedBy.flat();
      assert.equal(all.length, ITEMS, 'every item was claimed by exactly one reviewer (counting re-claims of abandoned ones)');
      assert.equal(new Set(all).size, ITEMS, 'no reviewer got an item another reviewer got');
      const S = `"${schema}"`;
      const one = async (sql: string): Promise<unknown> => Object.values((await admin.query(sql)).rows[0] as object)[0];
      assert.equal(await one(`SELECT count(*)::int FROM ${S}.review_verdicts`), ITEMS, 'one verdict per item');
      assert.equal(await one(`SELECT count(DISTINCT item_id)::int FROM ${S}.review_verdicts`), ITEMS);
      assert.equal(await one(`SELECT count(*)::int FROM ${S}.review_items WHERE state <> 'decided'`), 0, 'none lost');
      assert.deepEqual(
        (await admin.query(`SELECT id FROM ${S}.review_items WHERE claims > 1 ORDER BY id`)).rows.map((row) => row.id),
        [...abandoned].sort(),
        'only the abandoned items were claimed again, after their lease',
      );
      assert.equal(await one(`SELECT count(*)::int FROM ${S}.review_items WHERE claims < 1`), 0);
      const stats = await queues.reviewers[0]?.stats();
      assert.deepEqual([stats?.depth, stats?.dropped, stats?.verdicts.total], [0, 0, ITEMS]);

      // The journal holds every verdict in the order the queue took them, and replaying the tuner over
      // that order gives exactly the limit changes it journaled: no verdict slipped past the window.
      const journal = (await (queues.reviewers[0] as PostgresReviewQueue).journal()).map(parseJournalEntry);
      assert.deepEqual(await queues.reviewers[0]?.verifyJournal(), {
        ok: true,
        records: journal.length,
        bytes: (await queues.reviewers[0]?.journal())?.reduce((sum, row) => sum + row.body.length, 0),
      });
      const journaled = journal.flatMap((entry) => (entry.type === 'verdict' ? [entry.data] : []));
      assert.deepEqual(
        journaled.map((verdict) => verdict.id),
        (await admin.query(`SELECT id FROM ${S}.review_verdicts ORDER BY seq`)).rows.map((row) => row.id),
      );
      let limit = TUNER.initial;
      const expected = [];
      for (let n = TUNER.window - 1; n < journaled.length; n += 1) {
        const change = limitChange({ limit, window: journaled.slice(n - TUNER.window + 1, n + 1), policy: TUNER, at: 0 });
        if (change !== undefined) expected.push([change.from, change.to, change.verdictIds]);
        limit = change?.to ?? limit;
      }
      const changes = journal.flatMap((entry) => (entry.type === 'limit_change' ? [entry.data] : []));
      assert.deepEqual(
        changes.map((change) => [change.from, change.to, change.verdictIds]),
        expected,
      );
      assert.equal(stats?.attemptLimit, limit);
      const perReviewer = claimedBy.map((claimed) => claimed.length);
      t.diagnostic(
        `${ITEMS} items, ${PRODUCERS} producers, ${REVIEWERS} reviewers: ${seconds.toFixed(1)} s, ${Math.round(ITEMS / seconds)} enqueue→claim→verdict cycles/s; per reviewer ${perReviewer.join(', ')}; ${ABANDONED} abandoned claims re-claimed after their ${SHORT_LEASE_MS} ms lease; tuner limit ${stats?.attemptLimit}`,
      );
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });
});

const CHILD = fileURLToPath(new URL('./sqlite-reviewer-child.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('PostgreSQL verdicts racing on one item', () => {
  it('refuses the second verdict naming the first, even when it waited on the item while the first committed', async () => {
    const admin = await connectPostgres();
    const schema = freshSchema();
    const holder = await connectPostgres();
    try {
      // A window of one verdict: every verdict may take the one-statement path.
      const options = { connection: POSTGRES_URL, schema, tuner: { window: 1, raiseAbove: 1, lowerBelow: 0 } };
      const alice = await PostgresReviewQueue.open(options);
      const bob = await PostgresReviewQueue.open(options);
      try {
        await alice.enqueue(brief('run-1'));
        const first = await alice.claim('alice', { leaseMs: 1 });
        await sleep(10);
        const second = await bob.claim('bob');
        assert.equal(second?.item.id, first?.item.id, "alice's lease ran out and bob took the item");
        const itemId = first?.item.id as string;
        // Hold the state row: bob's verdict locks the item, then waits; alice's then waits on the item.
        await holder.query('BEGIN');
        await holder.query(`SELECT 1 FROM "${schema}".review_state FOR UPDATE`);
        const bobs = bob.verdict(itemId, { reviewer: 'bob', decision: 'approve', label: 'unclear' });
        await sleep(150);
        const alices = alice.verdict(itemId, { reviewer: 'alice', decision: 'reject', label: 'logic_error' }).then(
          () => undefined,
          (error: unknown) => error,
        );
        await sleep(150);
        await holder.query('COMMIT');
        assert.equal((await bobs).verdict.reviewer, 'bob');
        const refused = (await alices) as { code?: string; message?: string } | undefined;
        assert.equal(refused?.code, 'review.verdict_conflict', String(refused?.message));
        assert.match(String(refused?.message), /already has a verdict: approve \(unclear\) by bob/);
        assert.equal((await alice.verifyJournal()).ok, true);
      } finally {
        await alice.close();
        await bob.close();
      }
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });
});

describe('SQLite review queue across processes', () => {
  it('4 reviewer processes on one file decide 1,000 items, each claimed once, none lost', async (t) => {
    const dir = await tempDir('redline-review-');
    const file = path.join(dir, 'redline.db');
    try {
      const queue = await SqliteReviewQueue.open({ database: file, synchronous: 'off', backpressure: { capacity: 10_000 } });
      for (let n = 0; n < 1_000; n += 1) await queue.enqueue(brief(`run-${n}`, { priority: n % 5 }));
      const children = Array.from({ length: 4 }, (_, n) => {
        const child = spawn(process.execPath, [CHILD, file, `reviewer-${n}`], { cwd: ROOT, stdio: 'pipe' });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        const closed = once(child, 'close').then(([code]) => ({ code: code as number | null, stdout, stderr }));
        return { child, closed, ready: Promise.race([once(child.stdout, 'data'), closed]) };
      });
      // All open first, then all go at once, so their claims race.
      await Promise.all(children.map(({ ready }) => ready));
      for (const { child } of children) child.stdin.end('go\n');
      const outcomes = await Promise.all(children.map(({ closed }) => closed));
      for (const outcome of outcomes) assert.equal(outcome.code, 0, outcome.stderr);
      const claimed = outcomes.map((outcome) => JSON.parse(outcome.stdout.trim().split('\n').at(-1) as string) as string[]);
      const all = claimed.flat();
      assert.equal(all.length, 1_000);
      assert.equal(new Set(all).size, 1_000, 'no item went to two processes');
      const stats = await queue.stats();
      assert.deepEqual([stats.depth, stats.verdicts.total], [0, 1_000]);
      t.diagnostic(`per process ${claimed.map((ids) => ids.length).join(', ')}`);
      await queue.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
