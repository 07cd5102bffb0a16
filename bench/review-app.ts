// The reviewer web app's queue page at depth: a SQLite ledger holding 10,000 runs and a review queue of
// 10,000 items (one per run), served by `serveReviewApp` on loopback; a signed-in client asks for the
// queue page over HTTP (keep-alive) and the time to the last byte is measured. A benchmark, not a test.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Brief } from '../src/core/brief.js';
import { SqliteLedger } from '../src/ledger/sqlite/sqlite-ledger.js';
import { SqliteReviewQueue } from '../src/review/sqlite/sqlite-review-queue.js';
import { serveReviewApp } from '../src/review-app/serve-review-app.js';
import { generateToken } from '../src/review-app/tokens.js';
import { signIn, spread } from './signed-in-client.js';

export interface ReviewAppBenchResult {
  readonly items: number;
  readonly rounds: number;
  /** The first request, with the missions not yet read from the ledger. */
  readonly firstMs: number;
  /** The queue page: first page, unfiltered. */
  readonly pageMs: { readonly median: number; readonly p95: number };
  /** The queue filtered by verification label, which reads the whole queue. */
  readonly filteredMs: { readonly median: number; readonly p95: number };
  readonly pageBytes: number;
  readonly fillS: number;
}

const brief = (index: number): Brief => ({
  runId: `run-${index}`,
  task: `fix the failing test ${index} of the payments service`,
  priority: index % 7,
  finalOutput: { files: { [`src/module-${index}.ts`]: `export const value${index} = ${index};\n` } },
  cutoffReason: 'budget_attempts: 5 of 5 attempts used',
  lastError: 'tests: expected 2, got 3',
  attempts: 5,
  verification: index % 10 === 0 ? 'sampled' : 'unverified',
});

/** Measures the queue page with `items` items in the queue. */
export async function reviewAppBench({
  items = 10_000,
  rounds = 40,
}: { items?: number; rounds?: number } = {}): Promise<ReviewAppBenchResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'redline-bench-review-app-'));
  const file = path.join(dir, 'redline.db');
  const ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
  const queue = await SqliteReviewQueue.open({ database: file, synchronous: 'off', backpressure: { capacity: items * 2 } });
  try {
    const fillStart = performance.now();
    for (let index = 0; index < items; index += 1) {
      await ledger.append({
        runId: `run-${index}`,
        seq: 0,
        type: 'run.started',
        at: Date.now(),
        data: { mission: { id: `mission-${index % 50}`, taskType: ['fix-ci', 'migrate', 'extract'][index % 3] } },
      });
      await queue.enqueue(brief(index));
    }
    const fillS = (performance.now() - fillStart) / 1000;
    const startToken = generateToken();
    const server = await serveReviewApp({ queue, ledger, startToken });
    try {
      const client = await signIn(server, startToken);
      const time = async (route: string): Promise<{ ms: number; bytes: number }> => {
        const { ms, body } = await client.get(route);
        return { ms, bytes: body.length };
      };
      const first = await time('/');
      for (let warm = 0; warm < 5; warm += 1) await time('/');
      const page: number[] = [];
      const filtered: number[] = [];
      let pageBytes = 0;
      for (let round = 0; round < rounds; round += 1) {
        const result = await time('/');
        page.push(result.ms);
        pageBytes = result.bytes;
        filtered.push((await time('/?verification=sampled')).ms);
      }
      return { items, rounds, firstMs: first.ms, pageMs: spread(page), filteredMs: spread(filtered), pageBytes, fillS };
    } finally {
      await server.close();
    }
  } finally {
    await queue.close();
    await ledger.close();
    await rm(dir, { recursive: true, force: true });
  }
}
