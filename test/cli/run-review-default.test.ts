import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { openReviewQueue, reviewQueueExists } from '../../src/review/open-review-queue.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline, ROOT } from './redline.js';

// The review queue by default: `redline run` hands an unverified run to its ledger's review queue without
// --review, creating the queue when a run first needs it, and samples a sampled run at the given rate;
// --no-review opts out and is recorded. A SQLite file and the local PostgreSQL.
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const schema = `redline_review_default_${process.pid}`;
/**
 * A text task with only an advisory score (a shell judge that always answers 0.5), cut off after one
 * attempt: unverified, so it goes to review. Cheaper than the bundled examples, whose judges are Node programs.
 */
async function unverifiedMission(): Promise<string> {
  const dir = await tempWorkspace({
    'attempts.json': JSON.stringify([{ value: 'a summary' }]),
    'mission.json': JSON.stringify({
      id: 'scored-summary',
      goal: 'Summarize the report.',
      taskType: 'summarize',
      budgets: { maxAttempts: 1 },
      checks: [
        {
          name: 'summary-quality',
          kind: 'score',
          command: ['sh', '-c', 'cat >/dev/null; echo \'{"score":0.5}\''],
          required: false,
          pass: 0.9,
        },
      ],
      stopPolicy: { guards: [{ threshold: { bar: 0.9 } }] },
      proposer: { kind: 'replay', file: 'attempts.json' },
    }),
  });
  return path.join(dir, 'mission.json');
}
const MISSION = await unverifiedMission();

for (const name of ['REDLINE_LEDGER', 'NO_COLOR']) delete process.env[name];
process.env.FORCE_COLOR = '0';

async function dropSchema(name: string): Promise<void> {
  const client = new pg.Client(PG_URL);
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
  } finally {
    await client.end();
  }
}

after(async () => dropSchema(schema));

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

const PASSING = path.join(ROOT, 'examples/already-passing/mission.yaml');
const SAMPLED = path.join(ROOT, 'examples/extraction-sampled/mission.yaml');

for (const [backend, location] of [
  ['SQLite', async () => path.join(await tempWorkspace({}), 'redline.db')],
  ['PostgreSQL', async () => `${PG_URL}?schema=${schema}`],
] as const) {
  describe(`redline run and the review queue by default (${backend})`, () => {
    it('creates no queue for a run that needs no review; the first unverified run creates it and is enqueued, and the summary says where and how to review it', async () => {
      const ledger = await location();
      const verified = await redline(['run', PASSING, '--json', '--ledger', ledger]);
      assert.equal(verified.code, 0, verified.stderr);
      const passed = JSON.parse(verified.stdout) as { runId: string; review: unknown };
      assert.equal(passed.review, undefined);
      assert.equal((await started(ledger, passed.runId))?.review, 'default');
      assert.equal(await reviewQueueExists(ledger), false);

      const first = await redline(['run', MISSION, '--ledger', ledger]);
      assert.equal(first.code, 1, first.stderr);
      assert.match(
        first.stdout,
        /\nreview {8}enqueued as item \S+ · queue normal \(by default: a review queue created in the ledger; --no-review opts out\)\n {14}review it: redline review serve --ledger \S+ \(or list, claim, verdict\)\n$/,
      );
      assert.ok(first.stdout.includes(`--ledger ${ledger.includes('?') ? `'${ledger}'` : ledger} (or list`), first.stdout);
      assert.equal(await reviewQueueExists(ledger), true);
      assert.equal(await queueDepth(ledger), 1);

      const byDefault = await redline(['run', MISSION, '--json', '--ledger', ledger]);
      assert.equal(byDefault.code, 1, byDefault.stderr);
      const summary = JSON.parse(byDefault.stdout) as {
        runId: string;
        verification: string;
        review: { enqueued: boolean; by: string; queueCreated?: boolean };
      };
      assert.deepEqual(
        [summary.verification, summary.review.enqueued, summary.review.by, summary.review.queueCreated],
        ['unverified', true, 'default', undefined],
      );
      assert.equal((await started(ledger, summary.runId))?.review, 'default');
      assert.equal(await queueDepth(ledger), 2);

      const text = await redline(['run', MISSION, '--ledger', ledger]);
      assert.match(
        text.stdout,
        /\nreview {8}enqueued as item \S+ · queue normal \(by default: the ledger has a review queue; --no-review opts out\)\n {14}review it: /,
      );
      assert.equal(await queueDepth(ledger), 3);

      const optedOut = await redline(['run', MISSION, '--no-review', '--json', '--ledger', ledger]);
      const out = JSON.parse(optedOut.stdout) as { runId: string; review: { enqueued: boolean; reason: string } };
      assert.deepEqual(out.review, { enqueued: false, reason: 'opted out (--no-review)' });
      const record = await started(ledger, out.runId);
      assert.deepEqual([record?.review, record?.handoff], ['opted_out', undefined]);
      assert.equal(await queueDepth(ledger), 3);
      assert.match(
        (await redline(['run', MISSION, '--no-review', '--ledger', ledger])).stdout,
        /\nreview {8}not enqueued \(--no-review\)\n$/,
      );

      const requested = await redline(['run', MISSION, '--review', '--json', '--ledger', ledger]);
      const asked = JSON.parse(requested.stdout) as { runId: string; review: { enqueued: boolean; by?: string } };
      assert.deepEqual([asked.review.enqueued, asked.review.by], [true, undefined]);
      assert.equal((await started(ledger, asked.runId))?.review, 'requested');
    });

    it('samples a sampled run by default at the rate given, creating the queue for it; --no-review refuses a rate', async () => {
      const ledger = backend === 'SQLite' ? await location() : `${PG_URL}?schema=${schema}_sampled`;
      try {
        const left = await redline(['run', SAMPLED, '--sample-rate', '0', '--ledger', ledger]);
        assert.equal(left.code, 0, left.stderr);
        assert.match(left.stdout, /\nreview {8}not enqueued \(not sampled\)\n$/);
        assert.equal(await reviewQueueExists(ledger), false, 'a run the sample left out creates no queue');

        const sampled = await redline(['run', SAMPLED, '--sample-rate', '1', '--json', '--ledger', ledger]);
        assert.equal(sampled.code, 0, sampled.stderr);
        const summary = JSON.parse(sampled.stdout) as { verification: string; review: { enqueued: boolean; tags: string[]; by: string } };
        assert.deepEqual(
          [summary.verification, summary.review.enqueued, summary.review.tags, summary.review.by],
          ['sampled', true, ['sample'], 'default'],
        );
        assert.equal(await queueDepth(ledger), 1);

        const refused = await redline(['run', SAMPLED, '--no-review', '--sample-rate', '1', '--ledger', ledger]);
        assert.equal(refused.code, 2);
        assert.match(refused.stderr, /Expected review with --sample-rate or --alert-webhook, got --no-review/);
      } finally {
        if (backend === 'PostgreSQL') await dropSchema(`${schema}_sampled`);
      }
    });
  });
}
describe('redline run of several missions on a ledger without a queue', () => {
  it('shares one queue, created by the first run that needs it, and says so only for that run', async () => {
    const ledger = path.join(await tempWorkspace({}), 'redline.db');
    const missions = ['summary-semantic-only', 'budget-cutoff', 'oscillation'].map((name) =>
      path.join(ROOT, `examples/${name}/mission.yaml`),
    );
    const { code, stdout } = await redline(['run', ...missions, '--concurrency', '3', '--ledger', ledger]);
    assert.equal(code, 1);
    const lines = stdout.split('\n').filter((line) => / review {8}enqueued as item /.test(line));
    assert.equal(lines.length, 3, stdout);
    assert.equal(
      lines.filter((line) => line.includes('(by default: a review queue created in the ledger; --no-review opts out)')).length,
      1,
    );
    assert.equal(lines.filter((line) => line.includes('(by default: the ledger has a review queue; --no-review opts out)')).length, 2);
    assert.equal(await queueDepth(ledger), 3);
  });
});

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
