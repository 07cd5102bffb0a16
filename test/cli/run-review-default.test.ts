import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { openReviewQueue, reviewQueueExists } from '../../src/review/open-review-queue.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline, ROOT } from './redline.js';

// Rule 3 by default: `redline run` hands an unverified run to the review queue its ledger already has,
// without --review; --no-review opts out and is recorded. A SQLite file and the local PostgreSQL.
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const schema = `redline_review_default_${process.pid}`;
const MISSION = path.join(ROOT, 'examples/summary-semantic-only/mission.yaml');

for (const name of ['REDLINE_LEDGER', 'NO_COLOR']) delete process.env[name];
process.env.FORCE_COLOR = '0';

after(async () => {
  const client = new pg.Client(PG_URL);
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

/** The `run.started` record of a run. */
async function started(location: string, runId: string): Promise<Record<string, unknown> | undefined> {
  const ledger = await openLedger(location);
  try {
    return (await ledger.records(runId))[0]?.data;
  } finally {
    await ledger.close();
  }
}

async function queueDepth(location: string): Promise<number> {
  const queue = await openReviewQueue(location);
  try {
    return (await queue.list()).length;
  } finally {
    await queue.close();
  }
}

for (const [backend, location] of [
  ['SQLite', async () => path.join(await tempWorkspace({}), 'redline.db')],
  ['PostgreSQL', async () => `${PG_URL}?schema=${schema}`],
] as const) {
  describe(`redline run on a ledger with a review queue (${backend})`, () => {
    it('without a queue enqueues nothing and creates none; with one, enqueues an unverified run by default and says why; --no-review opts out, recorded', async () => {
      const ledger = await location();
      const plain = await redline(['run', MISSION, '--json', '--ledger', ledger]);
      assert.equal(plain.code, 1, plain.stderr);
      assert.equal((JSON.parse(plain.stdout) as { review?: unknown }).review, undefined);
      assert.equal(await reviewQueueExists(ledger), false);

      await (await openReviewQueue(ledger)).close();
      assert.equal(await reviewQueueExists(ledger), true);
      const byDefault = await redline(['run', MISSION, '--json', '--ledger', ledger]);
      assert.equal(byDefault.code, 1, byDefault.stderr);
      const summary = JSON.parse(byDefault.stdout) as { runId: string; verification: string; review: { enqueued: boolean; by: string } };
      assert.deepEqual([summary.verification, summary.review.enqueued, summary.review.by], ['unverified', true, 'default']);
      assert.equal((await started(ledger, summary.runId))?.review, 'default');
      assert.equal(await queueDepth(ledger), 1);

      const text = await redline(['run', MISSION, '--ledger', ledger]);
      assert.match(
        text.stdout,
        /\nreview {8}enqueued as item \S+ · queue normal \(by default: the ledger has a review queue; --no-review opts out\)\n$/,
      );
      assert.equal(await queueDepth(ledger), 2);

      const optedOut = await redline(['run', MISSION, '--no-review', '--json', '--ledger', ledger]);
      const out = JSON.parse(optedOut.stdout) as { runId: string; review: { enqueued: boolean; reason: string } };
      assert.deepEqual(out.review, { enqueued: false, reason: 'opted out (--no-review)' });
      const record = await started(ledger, out.runId);
      assert.deepEqual([record?.review, record?.handoff], ['opted_out', undefined]);
      assert.equal(await queueDepth(ledger), 2);
      assert.match(
        (await redline(['run', MISSION, '--no-review', '--ledger', ledger])).stdout,
        /\nreview {8}not enqueued \(--no-review\)\n$/,
      );

      const requested = await redline(['run', MISSION, '--review', '--json', '--ledger', ledger]);
      const asked = JSON.parse(requested.stdout) as { runId: string; review: { enqueued: boolean; by?: string } };
      assert.deepEqual([asked.review.enqueued, asked.review.by], [true, undefined]);
      assert.equal((await started(ledger, asked.runId))?.review, 'requested');
    });
  });
}

describe('redline run --review of a sampled run the sample left out', () => {
  it('says it was not sampled, and names no queue mode it does not have', async () => {
    const ledger = path.join(await tempWorkspace({}), 'redline.db');
    const sampled = path.join(ROOT, 'examples/extraction-sampled/mission.yaml');
    const { code, stdout } = await redline(['run', sampled, '--review', '--sample-rate', '0', '--ledger', ledger]);
    assert.equal(code, 0);
    assert.match(stdout, /\nreview {8}not enqueued \(not sampled\)\n/);
    assert.doesNotMatch(stdout, /undefined/);
  });
});
