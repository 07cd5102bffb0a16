// Review-queue throughput on PostgreSQL: redline's enqueue → claim → verdict cycle next to pg-boss's
// send → fetch → complete cycle, on the same database, in the same process run, with the same payload
// (a brief as JSON), one producer and the same number of reviewers, each on its own connection.
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { PgPool } from '../src/db/postgres/pg-pool.js';
import type { Brief } from '../src/core/brief.js';
import { PostgresReviewQueue } from '../src/review/postgres/postgres-review-queue.js';

/** Per second, over one round or as medians over rounds. */
export interface RoundRates {
  /** Whole cycles: items over the time from the first enqueue to the last decision. */
  readonly cycles: number;
  /** The producer's phase alone. */
  readonly enqueues: number;
  /** The reviewers' phase alone: claim (fetch) and decide, all reviewers together. */
  readonly decisions: number;
}

export interface ReviewQueueBenchResult {
  readonly items: number;
  readonly reviewers: number;
  readonly rounds: number;
  /** Size of one brief as JSON: the payload both queues carry. */
  readonly briefBytes: number;
  /** Medians over rounds, per second. */
  readonly redline: RoundRates;
  readonly pgBoss: RoundRates;
  /** Median over rounds of redline / pg-boss cycles in the same round; 1 is parity. */
  readonly ratio: number;
}

/** One side of the comparison: a producer and reviewers, each on its own single-connection pool, as separate processes would be. */
interface Contender {
  produce(brief: Brief): Promise<void>;
  /** Per reviewer: takes the next free item and decides it; false when none was free. */
  readonly reviewers: readonly (() => Promise<boolean>)[];
  close(): Promise<void>;
}

const SOURCE = `export function parseHeader(line: string): Header {
  const index = line.indexOf(':');
  if (index < 0) throw new TypeError(\`Expected "name: value", got \${JSON.stringify(line)}\`);
  return { name: line.slice(0, index).trim().toLowerCase(), value: line.slice(index + 1).trim() };
}
`;

/** A brief as `runMission` hands one over after an unverified cutoff: the changed file, the last error (~0.7 KB as JSON). */
function benchBrief(runId: string, n: number): Brief {
  return {
    runId,
    task: 'make the header parser pass its tests (folded headers, empty values, duplicate names)',
    priority: n % 7,
    finalOutput: { files: { 'src/parse/header.ts': SOURCE, 'src/parse/legacy.ts': null }, value: { headersParsed: 3 } },
    cutoffReason: 'budget_attempts: 5 of 5 attempts used',
    lastError: 'unit-tests: expected 3 headers, got 2 (test/parse/header.test.ts › folded headers)',
    attempts: 5,
    verification: 'unverified',
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/**
 * One round: the producer enqueues `briefs` one awaited call each, then every reviewer loops take → decide
 * until nothing is left. Enqueuing first keeps idle reviewers from polling an empty queue while it fills,
 * which on a small machine takes the CPU from the producer and measures the polling instead.
 */
async function round(contender: Contender, briefs: readonly Brief[]): Promise<RoundRates> {
  const started = performance.now();
  for (const brief of briefs) await contender.produce(brief);
  const produced = performance.now();
  let decided = 0;
  await Promise.all(
    contender.reviewers.map(async (cycle) => {
      while (await cycle()) decided += 1;
    }),
  );
  const ended = performance.now();
  if (decided !== briefs.length) throw new Error(`expected ${briefs.length} items decided, got ${decided}`);
  const rate = (ms: number): number => (briefs.length * 1000) / ms;
  return { cycles: rate(ended - started), enqueues: rate(produced - started), decisions: rate(ended - produced) };
}

/** Single-connection pools, ended together. */
function poolsFor(connection: string): { open(): pg.Pool; end(): Promise<void> } {
  const pools: pg.Pool[] = [];
  return {
    open: () => {
      const pool = new pg.Pool({ connectionString: connection, max: 1 });
      pools.push(pool);
      return pool;
    },
    end: async () => {
      await Promise.all(pools.map((pool) => pool.end()));
    },
  };
}

/** redline: `enqueue`, then `claim` and `verdict` per reviewer; a capacity no round reaches, so nothing is dropped. */
async function redlineContender({
  connection,
  schema,
  reviewers,
  capacity,
}: {
  connection: string;
  schema: string;
  reviewers: number;
  capacity: number;
}): Promise<Contender> {
  const pools = poolsFor(connection);
  const open = (): Promise<PostgresReviewQueue> =>
    PostgresReviewQueue.open({ connection: pools.open() as unknown as PgPool, schema, backpressure: { capacity } });
  try {
    const producer = await open();
    const queues = await Promise.all(Array.from({ length: reviewers }, open));
    return {
      produce: async (brief) => {
        const { item } = await producer.enqueue(brief);
        if (item === undefined) throw new Error(`${brief.runId} was dropped: the bench's capacity is too small`);
      },
      reviewers: queues.map((queue, r) => async () => {
        const reviewer = `reviewer-${r}`;
        const entry = await queue.claim(reviewer, { leaseMs: 60_000 });
        if (entry === undefined) return false;
        // Mixed decisions, so the tuner's window moves the limit both ways as it would in use.
        await queue.verdict(entry.item.id, { reviewer, decision: entry.item.priority % 2 === 0 ? 'approve' : 'reject', label: 'unclear' });
        return true;
      }),
      close: () => pools.end(),
    };
  } catch (error) {
    await pools.end();
    throw error;
  }
}

/** pg-boss 10: `send`, then `fetch` (batch size 1) and `complete` per worker; no supervisor, scheduler or polling worker. */
async function pgBossContender({
  connection,
  schema,
  reviewers,
}: {
  connection: string;
  schema: string;
  reviewers: number;
}): Promise<Contender> {
  const QUEUE = 'review';
  const boss = (migrate: boolean): PgBoss => {
    const instance = new PgBoss({ connectionString: connection, schema, max: 1, supervise: false, schedule: false, migrate });
    instance.on('error', (error) => console.error('pg-boss:', error));
    return instance;
  };
  const bosses: PgBoss[] = [];
  try {
    // The first instance installs the schema and the queue; the others only check it, as a fleet of workers would.
    const producer = boss(true);
    bosses.push(producer);
    await producer.start();
    await producer.createQueue(QUEUE);
    const workers = Array.from({ length: reviewers }, () => boss(false));
    bosses.push(...workers);
    await Promise.all(workers.map((worker) => worker.start()));
    return {
      produce: async (brief) => {
        const id = await producer.send(QUEUE, brief, { priority: brief.priority });
        if (id === null) throw new Error(`${brief.runId} was not sent`);
      },
      reviewers: workers.map((worker) => async () => {
        const [job] = await worker.fetch<Brief>(QUEUE, { batchSize: 1 });
        if (job === undefined) return false;
        await worker.complete(QUEUE, job.id);
        return true;
      }),
      close: async () => {
        await Promise.all(bosses.map((instance) => instance.stop({ graceful: false })));
      },
    };
  } catch (error) {
    await Promise.all(bosses.map((instance) => instance.stop({ graceful: false })));
    throw error;
  }
}

/**
 * A warm-up round each, then `rounds` rounds of `items` items per contender (order alternating, fresh run
 * ids each round), each contender in its own fresh schema, dropped afterwards. Reports medians; about
 * 45 s on a 2-core machine.
 */
export async function reviewQueueBench({
  items = 2_000,
  warmupItems = 400,
  rounds = 3,
  reviewers = 8,
  postgres = 'postgres://postgres@127.0.0.1:5432/test',
}: { items?: number; warmupItems?: number; rounds?: number; reviewers?: number; postgres?: string } = {}): Promise<ReviewQueueBenchResult> {
  const schemas = { redline: `redline_bench_review_${process.pid}`, pgBoss: `pgboss_bench_review_${process.pid}` };
  const admin = new pg.Pool({ connectionString: postgres, max: 1 });
  const contenders: Contender[] = [];
  try {
    const redline = await redlineContender({
      connection: postgres,
      schema: schemas.redline,
      reviewers,
      capacity: Math.max(items, warmupItems),
    });
    contenders.push(redline);
    const pgBoss = await pgBossContender({ connection: postgres, schema: schemas.pgBoss, reviewers });
    contenders.push(pgBoss);
    // Briefs are built before the clock starts; each round has its own run ids (redline refuses a run enqueued twice).
    const briefs = (prefix: string, count: number): Brief[] => Array.from({ length: count }, (_, n) => benchBrief(`${prefix}-${n}`, n));
    await round(redline, briefs('warm-redline', warmupItems));
    await round(pgBoss, briefs('warm-pgboss', warmupItems));
    const redlineRounds: RoundRates[] = [];
    const pgBossRounds: RoundRates[] = [];
    for (let r = 0; r < rounds; r += 1) {
      const redlineBriefs = briefs(`r${r}-redline`, items);
      const pgBossBriefs = briefs(`r${r}-pgboss`, items);
      // Alternating which goes first cancels drift (autovacuum, the shared disk); the ratio pairs each round's two.
      if (r % 2 === 0) redlineRounds.push(await round(redline, redlineBriefs));
      pgBossRounds.push(await round(pgBoss, pgBossBriefs));
      if (r % 2 === 1) redlineRounds.push(await round(redline, redlineBriefs));
    }
    const medians = (results: readonly RoundRates[]): RoundRates => ({
      cycles: median(results.map((result) => result.cycles)),
      enqueues: median(results.map((result) => result.enqueues)),
      decisions: median(results.map((result) => result.decisions)),
    });
    return {
      items,
      reviewers,
      rounds,
      briefBytes: Buffer.byteLength(JSON.stringify(benchBrief('r0-redline-0', 0))),
      redline: medians(redlineRounds),
      pgBoss: medians(pgBossRounds),
      ratio: median(redlineRounds.map((result, r) => result.cycles / (pgBossRounds[r] as RoundRates).cycles)),
    };
  } finally {
    await Promise.all(contenders.map((contender) => contender.close()));
    for (const schema of Object.values(schemas)) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

/** Per-call costs at one depth of the queue. */
export interface DepthPoint {
  readonly depth: number;
  /** Mean over the next 1,000 enqueues of the fill. */
  readonly enqueueUs: number;
  /** Mean over 500 verdicts on the newest items (the depth moves by 500 of 100,000 at most). */
  readonly verdictUs: number;
  /** `queue.stats()`, median of 20. */
  readonly statsMs: number;
  /** `redline review stats` in-process (open, stats, five newest drops and alerts, print), median of 5. */
  readonly reviewStatsMs: number;
}

export interface DepthBenchResult {
  readonly points: readonly DepthPoint[];
  /** Wall time of the whole fill to the last depth (the measurements at the checkpoints excluded). */
  readonly fillS: number;
  /** `verifyJournal()` at the last depth, and the heap it grew by (after a GC, before and at its end). */
  readonly verifyMs: number;
  readonly verifyHeapMB: number;
  /** A queue of capacity 1,000 after `drops` drops: `redline review stats` in-process, median of 5. */
  readonly drops: number;
  readonly droppedReviewStatsMs: number;
  readonly droppedReviewStatsHeapMB: number;
}

const medianOf = async (runs: number, work: () => Promise<unknown>): Promise<number> => {
  const times: number[] = [];
  for (let n = 0; n < runs; n += 1) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return median(times);
};

/** Heap growth of `work` in MB, from a collected heap (needs `--expose-gc`; 0 without it). */
async function heapGrowth(work: () => Promise<unknown>): Promise<{ ms: number; heapMB: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return { ms, heapMB: gc === undefined ? 0 : (peak - before) / 1e6 };
}

/**
 * The SQLite review queue at depth: fills one queue (file in the temp folder, `synchronous = normal`,
 * capacity above the last depth so nothing drops) one awaited `enqueue` each, and at each checkpoint
 * times the next 1,000 enqueues, 500 verdicts, `stats` and `redline review stats`; then verifies the
 * journal; then fills a second queue of capacity 1,000 with `drops` + 1,000 briefs and times
 * `redline review stats` over its drop log.
 */
export async function reviewQueueDepthBench({
  checkpoints = [1_000, 10_000, 100_000],
  drops = 100_000,
}: { checkpoints?: readonly number[]; drops?: number } = {}): Promise<DepthBenchResult> {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const os = await import('node:os');
  const path = await import('node:path');
  const { SqliteReviewQueue } = await import('../src/review/sqlite/sqlite-review-queue.js');
  const { reviewStatsCommand } = await import('../src/cli/review-command.js');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'redline-bench-depth-'));
  const output = { print: () => undefined, progress: () => undefined };
  try {
    const file = path.join(dir, 'deep.db');
    const last = Math.max(...checkpoints);
    const queue = await SqliteReviewQueue.open({ database: file, synchronous: 'normal', backpressure: { capacity: 2 * last + 10_000 } });
    const points: DepthPoint[] = [];
    let n = 0;
    let fillMs = 0;
    const enqueueTo = async (depth: number): Promise<void> => {
      const started = performance.now();
      while ((await queue.depth()) < depth) await queue.enqueue(benchBrief(`deep-${n++}`, n));
      fillMs += performance.now() - started;
    };
    for (const depth of checkpoints) {
      await enqueueTo(depth);
      const started = performance.now();
      for (let k = 0; k < 1_000; k += 1) await queue.enqueue(benchBrief(`deep-${n++}`, n));
      const enqueueUs = ((performance.now() - started) * 1000) / 1_000;
      const newest = (await queue.list()).slice(-500);
      const decided = performance.now();
      for (const entry of newest) await queue.verdict(entry.item.id, { reviewer: 'bench', decision: 'approve', label: 'unclear' });
      const verdictUs = ((performance.now() - decided) * 1000) / newest.length;
      const statsMs = await medianOf(20, () => queue.stats());
      const reviewStatsMs = await medianOf(5, () => reviewStatsCommand({ ledger: file }, output));
      points.push({ depth, enqueueUs, verdictUs, statsMs, reviewStatsMs });
    }
    const verified = await heapGrowth(async () => {
      const result = await queue.verifyJournal();
      if (!result.ok) throw new Error(`the bench queue does not verify: ${JSON.stringify(result)}`);
    });
    await queue.close();

    const droppedFile = path.join(dir, 'dropped.db');
    const small = await SqliteReviewQueue.open({ database: droppedFile, synchronous: 'normal', backpressure: { capacity: 1_000 } });
    for (let k = 0; k < drops + 1_000; k += 1) await small.enqueue(benchBrief(`drop-${k}`, k));
    const stats = await small.stats();
    if (stats.dropped !== drops) throw new Error(`expected ${drops} drops, got ${stats.dropped}`);
    await small.close();
    const droppedReviewStatsMs = await medianOf(5, () => reviewStatsCommand({ ledger: droppedFile }, output));
    const droppedHeap = await heapGrowth(() => reviewStatsCommand({ ledger: droppedFile }, output));
    return {
      points,
      fillS: fillMs / 1000,
      verifyMs: verified.ms,
      verifyHeapMB: verified.heapMB,
      drops,
      droppedReviewStatsMs,
      droppedReviewStatsHeapMB: droppedHeap.heapMB,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
