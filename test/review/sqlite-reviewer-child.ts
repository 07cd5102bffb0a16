/**
 * One reviewer process for the SQLite concurrency test: `node --import tsx sqlite-reviewer-child.ts
 * FILE NAME`. Opens the queue, says `ready`, waits for a line on stdin, then claims and decides items
 * until none is left, and prints the ids it claimed as JSON.
 */
import { once } from 'node:events';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';

const [file, reviewer] = process.argv.slice(2) as [string, string];
const queue = await SqliteReviewQueue.open({ database: file, synchronous: 'off', backpressure: { capacity: 10_000 } });
process.stdout.write('ready\n');
await once(process.stdin, 'data');
const claimed: string[] = [];
for (;;) {
  const entry = await queue.claim(reviewer, { leaseMs: 60_000 });
  if (entry === undefined) break;
  claimed.push(entry.item.id);
  await queue.verdict(entry.item.id, { reviewer, decision: 'approve', label: 'unclear' });
}
await queue.close();
process.stdout.write(`${JSON.stringify(claimed)}\n`);
process.exit(0);
