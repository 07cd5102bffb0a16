import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openReviewQueue } from '../../src/review/open-review-queue.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline } from '../cli/redline.js';
import { brief } from '../review/fixtures.js';
import { answerMission, fleetSchema, submitterKey } from './fleet-helpers.js';

// Backpressure reaches the fleet: while the review queue is degraded, a worker runs at half its concurrency and says so.
const fleet = fleetSchema('redline_backpressure');
after(() => fleet.drop());

describe('a worker under a degraded review queue', () => {
  it('halves its concurrency, says so in its log and in redline status', { timeout: 60_000 }, async () => {
    const queue = await openReviewQueue(fleet.url, { backpressure: { capacity: 2 } });
    try {
      // Depth 2 of 2 is above the high watermark (80%): degraded.
      await queue.enqueue(brief('waiting-1'));
      await queue.enqueue(brief('waiting-2'));
      assert.equal(await queue.mode(), 'degraded');
    } finally {
      await queue.close();
    }
    const dir = await tempWorkspace({});
    const file = await answerMission(dir, 'pressed');
    const proposer = `printf '%s' '{"files":{"src/answer.txt":"42\\n"}}'`;
    const key = submitterKey(dir);
    assert.equal((await redline(['submit', file, '--postgres', fleet.url, '--proposer', proposer, ...key.sign])).code, 0);
    const worker = await redline([
      'worker',
      '--postgres',
      fleet.url,
      '--concurrency',
      '4',
      '--until-idle',
      '--workdir',
      `${dir}/work`,
      ...key.trust,
    ]);
    assert.equal(worker.code, 0, worker.stderr);
    assert.match(worker.stderr, /review queue degraded: concurrency 4 → 2/);
    assert.match(worker.stderr, /done complete 1 · failures 0/);
    const status = JSON.parse((await redline(['status', '--postgres', fleet.url, '--json'])).stdout) as {
      workers: { concurrency: number; note?: string }[];
    };
    assert.deepEqual(
      status.workers.map((row) => [row.concurrency, row.note]),
      [[2, 'review queue degraded: concurrency 4 → 2']],
    );
  });
});
