/**
 * One reviewer process for the SQLite concurrency test: `node sqlite-reviewer-child.mjs FILE NAME`, on
 * the built queue (`npm test` builds first), so that a reviewer costs a plain node start, not tsx's.
 * Opens the queue, says `ready`, waits for a line on stdin, then claims and decides items until none is
 * left, and prints the ids it claimed as JSON.
 */
import { once } from 'node:events';
import { SqliteReviewQueue } from '../../dist/review/sqlite/sqlite-review-queue.js';

const [file, reviewer] = process.argv.slice(2);
const queue = await SqliteReviewQueue.open({ database: file, synchronous: 'off', backpressure: { capacity: 10_000 } });
process.stdout.write('ready\n');
await once(process.stdin, 'data');
const claimed = [];
for (;;) {
  const entry = await queue.claim(reviewer, { leaseMs: 60_000 });
  if (entry === undefined) break;
  claimed.push(entry.item.id);
  await queue.verdict(entry.item.id, { reviewer, decision: 'approve', label: 'unclear' });
}
await queue.close();
process.stdout.write(`${JSON.stringify(claimed)}\n`);
process.exit(0);
