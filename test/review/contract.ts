import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { ModeChange } from '../../src/review/backpressure.js';
import type { ReviewQueueOptions } from '../../src/review/config.js';
import { chainHash } from '../../src/core/hash-chain.js';
import { parseJournalEntry, type JournalEntry } from '../../src/review/journal-entries.js';
import { verifyJournal, type JournalRow } from '../../src/review/journal.js';
import { signJournalRows } from '../../src/review/journal-signature.js';
import { verifyStoredJournal } from '../../src/review/open-review-queue.js';
import { keyPair } from '../ledger/signed-runs.js';
import { ReviewError } from '../../src/review/review-error.js';
import type { ReviewItem, ReviewQueue } from '../../src/review/review-queue.js';
import type { OpenedQueue, RecycledQueue, ReviewBackend } from './backends.js';
import { brief, testRuntime } from './fixtures.js';
import { backpressureSequence, checkBackpressureSequence } from './property.js';

/**
 * Opens storage in the state a fresh open finds once it has migrated, with a test clock, hands it to
 * `work` and always closes it: for cases that need only the queue.
 */
async function withQueue(
  backend: ReviewBackend,
  extra: ReviewQueueOptions,
  work: (opened: RecycledQueue & { clock: ReturnType<typeof testRuntime> }) => Promise<void>,
): Promise<void> {
  const clock = testRuntime();
  const opened = await backend.openRecycled(clock.options(extra));
  try {
    await work({ ...opened, clock });
  } finally {
    await opened.close();
  }
}

/**
 * Opens fresh storage with a test clock, hands it to `work` and always closes (and deletes) it: for cases
 * that reopen the queue, open the ledger beside it, or reach its tables.
 */
async function withStorage(
  backend: ReviewBackend,
  extra: ReviewQueueOptions,
  work: (opened: OpenedQueue & { clock: ReturnType<typeof testRuntime> }) => Promise<void>,
): Promise<void> {
  const clock = testRuntime();
  const opened = await backend.open(clock.options(extra));
  try {
    await work({ ...opened, clock });
  } finally {
    await opened.close();
  }
}

/** What `assert.rejects` should see when the queue refuses with `code`. */
const refused =
  (code: string) =>
  (error: unknown): boolean => {
    assert.ok(error instanceof ReviewError, `expected a ReviewError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  };

async function enqueueAll(
  queue: ReviewQueue,
  runs: readonly { runId: string; priority?: number; tags?: string[] }[],
): Promise<ReviewItem[]> {
  const items: ReviewItem[] = [];
  for (const { runId, priority = 0, tags } of runs) {
    const result = await queue.enqueue(brief(runId, { priority }), tags === undefined ? {} : { tags });
    assert.ok(result.item, `${runId} was not enqueued`);
    items.push(result.item);
  }
  return items;
}

const approve = { reviewer: 'ana', decision: 'approve', label: 'unclear' } as const;

/** How many storages the contract keeps open at once: creating a PostgreSQL schema mostly waits, so cases run side by side. */
const OPEN_AT_ONCE = 4;

/** The backend, letting at most `limit` storages be open at once (each case opens and closes its own, one at a time). */
function limitOpen(backend: ReviewBackend, limit: number): ReviewBackend {
  let open = 0;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    open -= 1;
    waiting.shift()?.();
  };
  const limited =
    <O extends { close(): Promise<void> }>(opening: (options?: ReviewQueueOptions) => Promise<O>) =>
    async (options?: ReviewQueueOptions): Promise<O> => {
      if (open >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      open += 1;
      let opened: O;
      try {
        opened = await opening(options);
      } catch (error) {
        release();
        throw error;
      }
      return { ...opened, close: () => opened.close().finally(release) };
    };
  return {
    name: backend.name,
    propertyRuns: backend.propertyRuns,
    open: limited((options) => backend.open(options)),
    openRecycled: limited((options) => backend.openRecycled(options)),
    dropRecycled: () => backend.dropRecycled(),
  };
}

/**
 * The behaviour every `ReviewQueue` backend shares (docs/review.md), against a real database for each. Every case
 * has its own storage and clock, so the cases run side by side, {@link OPEN_AT_ONCE} storages at a time.
 */
export function reviewQueueContract(unlimited: ReviewBackend): void {
  const backend = limitOpen(unlimited, OPEN_AT_ONCE);
  describe(`ReviewQueue contract: ${backend.name}`, { concurrency: true }, () => {
    after(() => backend.dropRecycled());
    describe('briefs', () => {
      it('stores a brief whole as an item, with tags, the clock’s time and a generated id', () =>
        withQueue(backend, {}, async ({ queue, clock }) => {
          const input = brief('run-1', { priority: 3 });
          const result = await queue.enqueue(input, { tags: ['draft', 'draft', 'sampled'] });
          const expected: ReviewItem = { id: 'id-1', ...input, tags: ['draft', 'sampled'], enqueuedAt: clock.now() };
          assert.deepEqual(result, { item: expected, mode: 'normal' });
          assert.deepEqual(await queue.get('id-1'), { item: expected, status: 'queued', claims: 0 });
          assert.equal(await queue.get('nobody'), undefined);
        }));

      it('leaves optional fields out rather than storing them empty', () =>
        withQueue(backend, {}, async ({ queue }) => {
          const { lastError: _lastError, ...rest } = brief('run-1');
          const input = { ...rest, finalOutput: { files: {} } };
          const { item } = await queue.enqueue(input);
          assert.deepEqual((await queue.get(item?.id ?? ''))?.item, { id: 'id-1', ...input, tags: [], enqueuedAt: item?.enqueuedAt });
        }));

      it('refuses a malformed brief with what it expected and got', () =>
        withQueue(backend, {}, async ({ queue }) => {
          await assert.rejects(queue.enqueue(brief('')), {
            name: 'TypeError',
            message: 'Expected brief.runId to be a non-empty string, got ""',
          });
          await assert.rejects(queue.enqueue(brief('r', { priority: Number.NaN })), /Expected brief.priority to be a finite number/);
          await assert.rejects(
            queue.enqueue(brief('r', { verification: 'maybe' as never })),
            /Expected brief.verification to be one of verified, sampled, unverified, got "maybe"/,
          );
          await assert.rejects(queue.enqueue(brief('r'), { tags: [''] }), /Expected tags to be non-empty strings/);
          assert.equal(await queue.depth(), 0);
        }));

      it("keeps a brief's files before the run as given, and refuses a baseline that is not one path for path", () =>
        withQueue(backend, {}, async ({ queue }) => {
          const files = { 'src/a.ts': 'export const a = 2;\n', 'src/new.ts': 'new\n', 'src/old.ts': null, 'logo.png': 'x' };
          const baseline = {
            'src/a.ts': 'export const a = 1;\n<script>alert(1)</script>\n',
            'src/new.ts': null,
            'src/old.ts': 'old\n',
            'logo.png': { omitted: 'binary', bytes: 1234 },
          } as const;
          const { item } = await queue.enqueue(brief('with-baseline', { finalOutput: { files, baseline } }));
          assert.deepEqual((await queue.get(item?.id ?? ''))?.item.finalOutput, { files, baseline });
          const refused: [string, unknown][] = [
            ['an array', []],
            ['a path the files do not have', { ...baseline, 'src/other.ts': 'x' }],
            ['a changed path left out', { 'src/a.ts': 'x', 'src/new.ts': null, 'src/old.ts': 'y' }],
            ['a number for a file', { ...baseline, 'src/a.ts': 5 }],
            ['an unknown reason', { ...baseline, 'logo.png': { omitted: 'secret', bytes: 1 } }],
            ['a negative size', { ...baseline, 'logo.png': { omitted: 'binary', bytes: -1 } }],
          ];
          for (const [what, bad] of refused)
            await assert.rejects(
              queue.enqueue(brief(`bad-${what}`, { finalOutput: { files, baseline: bad as never } })),
              /^TypeError: Expected brief\.finalOutput\.baseline to hold exactly the paths of brief\.finalOutput\.files/,
              what,
            );
          assert.equal(await queue.depth(), 1);
        }));

      it('enqueues a run once: a second enqueue of the same run changes nothing', () =>
        withQueue(backend, {}, async ({ queue }) => {
          const [first] = await enqueueAll(queue, [{ runId: 'run-1' }]);
          assert.deepEqual(await queue.enqueue(brief('run-1', { priority: 9 })), { item: first, mode: 'normal', repeated: true });
          assert.equal(await queue.depth(), 1);
        }));

      it('lists the queue by priority, highest first, then by age', () =>
        withQueue(backend, {}, async ({ queue, clock }) => {
          for (const [runId, priority] of [
            ['a', 1],
            ['b', 5],
            ['c', 1],
            ['d', -2],
            ['e', 5],
          ] as const) {
            await queue.enqueue(brief(runId, { priority }));
            clock.advance(10);
          }
          assert.deepEqual(
            (await queue.list()).map((entry) => entry.item.runId),
            ['b', 'e', 'a', 'c', 'd'],
          );
          assert.deepEqual(
            (await queue.list({ limit: 2 })).map((entry) => entry.item.runId),
            ['b', 'e'],
          );
          assert.equal(await queue.depth(), 5);
        }));
    });

    describe('claims', () => {
      it('hands out the highest-priority, then oldest, unclaimed item, one reviewer each', () =>
        withQueue(backend, {}, async ({ queue, clock }) => {
          await enqueueAll(queue, [{ runId: 'low' }, { runId: 'high', priority: 2 }, { runId: 'low-2' }]);
          const first = await queue.claim('ana', { leaseMs: 60_000 });
          assert.deepEqual(first && { runId: first.item.runId, status: first.status, claims: first.claims, claim: first.claim }, {
            runId: 'high',
            status: 'claimed',
            claims: 1,
            claim: { reviewer: 'ana', claimedAt: clock.now(), leaseUntil: clock.now() + 60_000 },
          });
          assert.equal((await queue.claim('bo'))?.item.runId, 'low');
          assert.equal((await queue.claim('cy'))?.item.runId, 'low-2');
          assert.equal(await queue.claim('dee'), undefined);
          assert.deepEqual(
            (await queue.list()).map((entry) => [entry.item.runId, entry.status, entry.claim?.reviewer]),
            [
              ['high', 'claimed', 'ana'],
              ['low', 'claimed', 'bo'],
              ['low-2', 'claimed', 'cy'],
            ],
          );
          assert.equal(await queue.depth(), 3, 'claimed items still count toward the depth');
        }));

      it('returns an abandoned claim to the queue when its lease expires', () =>
        withQueue(backend, {}, async ({ queue, clock }) => {
          const [item] = await enqueueAll(queue, [{ runId: 'run-1' }]);
          await queue.claim('ana', { leaseMs: 1_000 });
          clock.advance(999);
          assert.equal(await queue.claim('bo', { leaseMs: 1_000 }), undefined, 'the lease still holds');
          assert.equal((await queue.get(item?.id ?? ''))?.status, 'claimed');
          clock.advance(1);
          assert.equal((await queue.get(item?.id ?? ''))?.status, 'queued', 'the lease ran out');
          const again = await queue.claim('bo', { leaseMs: 1_000 });
          assert.deepEqual(again && [again.item.id, again.claims, again.claim?.reviewer], [item?.id, 2, 'bo']);
        }));

      it('refuses a claim without a reviewer or with a lease that is not positive', () =>
        withQueue(backend, {}, async ({ queue }) => {
          await assert.rejects(queue.claim(''), { name: 'TypeError', message: 'Expected the reviewer to be a non-empty string, got ""' });
          await assert.rejects(queue.claim('ana', { leaseMs: 0 }), {
            name: 'TypeError',
            message: 'Expected leaseMs to be a positive number, got 0',
          });
        }));
    });

    describe('verdicts', () => {
      it('decides an item: it leaves the queue and keeps its verdict', () =>
        withQueue(backend, {}, async ({ queue, clock }) => {
          const [item] = await enqueueAll(queue, [{ runId: 'run-1' }, { runId: 'run-2' }]);
          await queue.claim('ana');
          const result = await queue.verdict(item?.id ?? '', {
            reviewer: 'ana',
            decision: 'reject',
            label: 'code_error',
            comment: 'off by one',
          });
          const verdict = {
            id: 'id-3',
            itemId: 'id-1',
            runId: 'run-1',
            reviewer: 'ana',
            decision: 'reject',
            label: 'code_error',
            comment: 'off by one',
            decidedAt: clock.now(),
          } as const;
          assert.deepEqual(result, { verdict, repeated: false });
          assert.deepEqual(await queue.get('id-1'), { item, status: 'decided', claims: 1, verdict });
          assert.equal(await queue.depth(), 1);
          assert.deepEqual(
            (await queue.list()).map((entry) => entry.item.runId),
            ['run-2'],
          );
          assert.deepEqual(await queue.recentVerdicts(), [verdict]);
        }));

      it('is idempotent: the same verdict again returns the first and changes nothing', () =>
        withQueue(backend, {}, async ({ queue, clock }) => {
          const [item] = await enqueueAll(queue, [{ runId: 'run-1' }]);
          const first = await queue.verdict(item?.id ?? '', approve);
          clock.advance(5_000);
          assert.deepEqual(await queue.verdict(item?.id ?? '', approve), { verdict: first.verdict, repeated: true });
          assert.equal((await queue.recentVerdicts()).length, 1);
        }));

      it('refuses a conflicting verdict, naming the first', () =>
        withQueue(backend, {}, async ({ queue }) => {
          const [item] = await enqueueAll(queue, [{ runId: 'run-1' }]);
          const { verdict: first } = await queue.verdict(item?.id ?? '', approve);
          for (const other of [
            { ...approve, decision: 'reject' as const },
            { ...approve, label: 'code_error' },
            { ...approve, reviewer: 'bo' },
            { ...approve, comment: 'fine' },
          ]) {
            await assert.rejects(queue.verdict(item?.id ?? '', other), (error: unknown) => {
              refused('review.verdict_conflict')(error);
              assert.deepEqual((error as ReviewError).firstVerdict, first);
              assert.match((error as Error).message, /already has a verdict: approve \(unclear\) by ana at .* \(verdict id-2\)/);
              return true;
            });
          }
          assert.deepEqual(await queue.recentVerdicts(), [first]);
        }));

      it('refuses a verdict on an item another reviewer holds, until the lease expires', () =>
        withQueue(backend, {}, async ({ queue, clock }) => {
          const [item] = await enqueueAll(queue, [{ runId: 'run-1' }]);
          await queue.claim('ana', { leaseMs: 1_000 });
          await assert.rejects(queue.verdict(item?.id ?? '', { ...approve, reviewer: 'bo' }), refused('review.claimed'));
          clock.advance(1_000);
          assert.equal((await queue.verdict(item?.id ?? '', { ...approve, reviewer: 'bo' })).verdict.reviewer, 'bo');
        }));

      it('refuses an unknown item, an unknown label and a malformed verdict, writing nothing', () =>
        withQueue(backend, {}, async ({ queue }) => {
          const [item] = await enqueueAll(queue, [{ runId: 'run-1' }]);
          await assert.rejects(queue.verdict('nobody', approve), refused('review.not_found'));
          await assert.rejects(queue.verdict(item?.id ?? '', { ...approve, label: 'typo' }), (error: unknown) => {
            refused('review.unknown_label')(error);
            assert.equal(
              (error as Error).message,
              'Unknown verdict label "typo": expected one of code_error, logic_error, format_issue, hallucination, unclear',
            );
            return true;
          });
          await assert.rejects(queue.verdict(item?.id ?? '', { ...approve, decision: 'maybe' as never }), { name: 'TypeError' });
          await assert.rejects(queue.verdict(item?.id ?? '', { ...approve, reviewer: ' ' }), { name: 'TypeError' });
          assert.equal(await queue.depth(), 1);
          assert.deepEqual(await queue.recentVerdicts(), []);
        }));

      it('accepts labels added by configuration', () =>
        withQueue(backend, { labels: ['missing_tests'] }, async ({ queue }) => {
          const [item] = await enqueueAll(queue, [{ runId: 'run-1' }]);
          assert.equal(
            (await queue.verdict(item?.id ?? '', { ...approve, decision: 'reject', label: 'missing_tests' })).verdict.label,
            'missing_tests',
          );
          assert.deepEqual(queue.config.labels.labels, [
            'code_error',
            'logic_error',
            'format_issue',
            'hallucination',
            'unclear',
            'missing_tests',
          ]);
          assert.equal((await queue.labelCounts()).missing_tests, 1);
        }));
    });

    describe('backpressure', () => {
      const small = { backpressure: { capacity: 5 } };

      it('enters degraded mode above the high watermark and returns below the low one, recording each switch', () =>
        withQueue(backend, small, async ({ queue, clock }) => {
          // capacity 5: degraded above 4 items, normal again below 1.5.
          const results = [];
          for (const runId of ['a', 'b', 'c', 'd', 'e']) results.push(await queue.enqueue(brief(runId)));
          assert.deepEqual(
            results.map((result) => result.mode),
            ['normal', 'normal', 'normal', 'normal', 'degraded'],
          );
          assert.deepEqual(results[4]?.modeChanged, { from: 'normal', to: 'degraded', depth: 5, at: clock.now() });
          assert.equal(await queue.mode(), 'degraded');
          const verdicts = [];
          for (const entry of await queue.list()) verdicts.push(await queue.verdict(entry.item.id, approve));
          assert.deepEqual(
            verdicts.map((result) => result.modeChanged?.to),
            [undefined, undefined, undefined, 'normal', undefined],
          );
          assert.deepEqual(await queue.modeChanges(), [
            { from: 'normal', to: 'degraded', depth: 5, at: clock.now() },
            { from: 'degraded', to: 'normal', depth: 1, at: clock.now() },
          ]);
          assert.equal(await queue.mode(), 'normal');
        }));

      it('at capacity drops the lowest-priority, then oldest, item and logs it whole', () =>
        withQueue(backend, small, async ({ queue, clock }) => {
          const items = await enqueueAll(queue, [
            { runId: 'a', priority: 2 },
            { runId: 'b', priority: 1 },
            { runId: 'c', priority: 1 },
            { runId: 'd', priority: 3 },
            { runId: 'e', priority: 2 },
          ]);
          clock.advance(100);
          const result = await queue.enqueue(brief('f', { priority: 1 }), { tags: ['draft'] });
          assert.deepEqual(result.dropped, items[1], 'b: lowest priority, older than c');
          assert.equal(result.item?.runId, 'f');
          assert.equal(result.mode, 'degraded');
          assert.equal(result.modeChanged, undefined);
          assert.equal(await queue.depth(), 5);
          assert.equal((await queue.get(items[1]?.id ?? ''))?.status, 'dropped');
          assert.deepEqual(await queue.droppedItems(), [
            { item: items[1], droppedAt: clock.now(), depth: 5, displacedBy: result.item?.id },
          ]);
          await assert.rejects(queue.verdict(items[1]?.id ?? '', approve), refused('review.dropped'));
        }));

      it('drops the arriving item itself when it is the lowest', () =>
        withQueue(backend, small, async ({ queue }) => {
          await enqueueAll(
            queue,
            ['a', 'b', 'c', 'd', 'e'].map((runId) => ({ runId, priority: 1 })),
          );
          const result = await queue.enqueue(brief('low', { priority: 0 }));
          assert.equal(result.item, undefined);
          assert.equal(result.dropped?.runId, 'low');
          const [logged] = await queue.droppedItems();
          assert.deepEqual(logged && { item: logged.item, displacedBy: logged.displacedBy }, {
            item: result.dropped,
            displacedBy: result.dropped?.id,
          });
          assert.equal((await queue.get(result.dropped?.id ?? ''))?.status, 'dropped');
          assert.deepEqual(await queue.enqueue(brief('low')), { dropped: result.dropped, mode: 'degraded', repeated: true });
          assert.equal(await queue.depth(), 5);
        }));

      it('never drops an item a reviewer holds, while the lease runs', () =>
        withQueue(backend, small, async ({ queue, clock }) => {
          await enqueueAll(queue, [{ runId: 'held', priority: -1 }, ...['a', 'b', 'c', 'd'].map((runId) => ({ runId }))]);
          // Claims go by priority: take the four others first, then the lowest.
          for (let n = 0; n < 5; n += 1) await queue.claim(`r${n}`, { leaseMs: 1_000 });
          assert.equal(
            (await queue.enqueue(brief('new', { priority: -5 }))).dropped?.runId,
            'new',
            'every queued item is held: the newcomer goes',
          );
          clock.advance(1_000);
          assert.equal(
            (await queue.enqueue(brief('new-2', { priority: 0 }))).dropped?.runId,
            'held',
            'the lease ran out: the lowest is droppable again',
          );
        }));

      it('takes capacity and watermarks from configuration and refuses impossible ones', async () => {
        await withQueue(backend, { backpressure: { capacity: 10, high: 0.5, low: 0.2 } }, async ({ queue }) => {
          assert.deepEqual(queue.config.backpressure, { capacity: 10, high: 0.5, low: 0.2 });
          const modes = [];
          for (let n = 0; n < 6; n += 1) modes.push((await queue.enqueue(brief(`r${n}`))).mode);
          assert.deepEqual(modes, ['normal', 'normal', 'normal', 'normal', 'normal', 'degraded']);
        });
        await assert.rejects(backend.open({ backpressure: { capacity: 0 } }), {
          name: 'TypeError',
          message: 'Expected capacity to be a positive integer, got 0',
        });
        await assert.rejects(backend.open({ backpressure: { high: 0.3, low: 0.3 } }), {
          name: 'TypeError',
          message: 'Expected the low watermark to be a fraction in [0, high), got 0.3 with high 0.3',
        });
      });

      it(`keeps its invariants over random enqueue, claim, verdict and clock sequences (${backend.propertyRuns} runs)`, async () => {
        // Each sequence runs on storage as a fresh open leaves it: OPEN_AT_ONCE series of random sequences (each its own seed) go side by side.
        await Promise.all(
          Array.from({ length: OPEN_AT_ONCE }, () =>
            fc.assert(
              fc.asyncProperty(backpressureSequence(), async (sequence) => {
                const clock = testRuntime();
                const opened = await backend.openRecycled(clock.options({ backpressure: sequence.policy }));
                try {
                  await checkBackpressureSequence(opened.queue, sequence, clock);
                } finally {
                  await opened.close();
                }
              }),
              { numRuns: Math.ceil(backend.propertyRuns / OPEN_AT_ONCE) },
            ),
          ),
        );
      });
    });

    describe('feedback tuner', () => {
      /** Enqueues and decides one item per decision, returning each verdict's result. */
      async function decide(queue: ReviewQueue, decisions: readonly ('approve' | 'reject')[], offset = 0) {
        const results = [];
        for (const [n, decision] of decisions.entries()) {
          const { item } = await queue.enqueue(brief(`run-${offset + n}`));
          results.push(await queue.verdict(item?.id ?? '', { ...approve, decision }));
        }
        return results;
      }

      it('changes nothing before 10 verdicts exist, then raises the limit above an 80% approve rate', () =>
        withQueue(backend, {}, async ({ queue, clock }) => {
          assert.equal(await queue.currentLimit(), 5);
          const results = await decide(queue, Array(11).fill('approve'));
          assert.deepEqual(
            results.slice(0, 9).map((result) => result.limitChanged),
            Array(9).fill(undefined),
          );
          const windowIds = results.slice(0, 10).map((result) => result.verdict.id);
          assert.deepEqual(results[9]?.limitChanged, { from: 5, to: 6, approveRate: 1, verdictIds: windowIds, at: clock.now() });
          assert.deepEqual(
            results[10]?.limitChanged?.verdictIds,
            results.slice(1, 11).map((result) => result.verdict.id),
          );
          assert.equal(await queue.currentLimit(), 7);
          assert.deepEqual(
            (await queue.limitChanges()).map((change) => [change.from, change.to, change.approveRate, change.verdictIds.length]),
            [
              [5, 6, 1, 10],
              [6, 7, 1, 10],
            ],
          );
        }));

      it('holds at exactly 80% and 40%, and lowers the limit below 40%', () =>
        withQueue(backend, {}, async ({ queue }) => {
          // 8 of 10 approved, then each reject slides the window down by one approval: 80% … 40% hold, 30% lowers.
          const results = await decide(queue, [...Array(8).fill('approve'), ...Array(7).fill('reject')]);
          assert.deepEqual(
            results.slice(9).map((result) => result.limitChanged?.to),
            [undefined, undefined, undefined, undefined, undefined, 4],
          );
          assert.equal(results[14]?.limitChanged?.approveRate, 0.3);
          assert.equal(await queue.currentLimit(), 4);
        }));

      it('stays within its bounds and records only real changes', () =>
        withQueue(backend, { tuner: { initial: 14, max: 15 } }, async ({ queue }) => {
          const results = await decide(queue, Array(13).fill('approve'));
          assert.deepEqual(results.map((result) => result.limitChanged?.to).slice(9), [15, undefined, undefined, undefined]);
          assert.equal(await queue.currentLimit(), 15);
          assert.equal((await queue.limitChanges()).length, 1);
        }));

      it('bottoms out at the minimum', () =>
        withQueue(backend, { tuner: { initial: 4 } }, async ({ queue }) => {
          const results = await decide(queue, Array(12).fill('reject'));
          assert.deepEqual(results.map((result) => result.limitChanged?.to).slice(9), [3, undefined, undefined]);
          assert.equal(await queue.currentLimit(), 3);
        }));
    });

    describe('labels and stats', () => {
      it('suggests a filter rule for a label seen more than 3 times in the recent window', () =>
        withQueue(backend, { labelWindow: 6 }, async ({ queue }) => {
          const labels = [
            'code_error',
            'code_error',
            'format_issue',
            'code_error',
            'code_error',
            'format_issue',
            'format_issue',
            'format_issue',
            'unclear',
          ];
          for (const [n, label] of labels.entries()) {
            const { item } = await queue.enqueue(brief(`run-${n}`));
            await queue.verdict(item?.id ?? '', { reviewer: 'ana', decision: n % 3 === 0 ? 'approve' : 'reject', label });
            if (n === 4)
              assert.deepEqual((await queue.stats()).suggestions, [
                {
                  label: 'code_error',
                  count: 4,
                  suggestion: 'add an automatic filter rule for code_error: 4 of the last 5 verdicts carry it',
                },
              ]);
          }
          // The window holds the last six: code_error ×2, format_issue ×3, unclear ×1 — nothing above 3.
          assert.deepEqual(await queue.labelCounts(), { code_error: 2, logic_error: 0, format_issue: 3, hallucination: 0, unclear: 1 });
          assert.deepEqual(await queue.labelCounts(100), { code_error: 4, logic_error: 0, format_issue: 4, hallucination: 0, unclear: 1 });
          const stats = await queue.stats();
          assert.deepEqual(stats.suggestions, []);
          assert.deepEqual(stats.verdicts, { total: 9, approved: 3, rejected: 6 });
          assert.equal(stats.window, 6);
          assert.equal(stats.approveRate, 2 / 6);
        }));

      it('reports depth, mode, claims, limit, drops and alerts in stats', () =>
        withQueue(backend, { backpressure: { capacity: 2 } }, async ({ queue }) => {
          assert.deepEqual(await queue.stats(), {
            depth: 0,
            capacity: 2,
            mode: 'normal',
            claimed: 0,
            attemptLimit: 5,
            verdicts: { total: 0, approved: 0, rejected: 0 },
            window: 0,
            labelCounts: { code_error: 0, logic_error: 0, format_issue: 0, hallucination: 0, unclear: 0 },
            suggestions: [],
            dropped: 0,
            alerts: 0,
          });
          await enqueueAll(queue, [
            { runId: 'a', priority: 1 },
            { runId: 'b', priority: 1 },
          ]);
          await queue.enqueue(brief('c'));
          await queue.claim('ana');
          const stats = await queue.stats();
          assert.deepEqual([stats.depth, stats.mode, stats.claimed, stats.dropped], [2, 'degraded', 1, 1]);
        }));
    });

    describe('run reports and alerts', () => {
      it('raises one alert when the budget-capped share crosses the threshold, and again after it fell back', () =>
        withQueue(backend, { alerts: { threshold: 0.5, window: 4 } }, async ({ queue, clock }) => {
          const report = (runId: string, budgetCapped: boolean) => queue.recordRun({ runId, budgetCapped });
          // Fewer than four runs: no alert even at 100%.
          for (const runId of ['r1', 'r2', 'r3']) assert.deepEqual(await report(runId, true), {});
          const { alert } = await report('r4', false);
          assert.deepEqual(alert, {
            id: 'id-1',
            kind: 'budget_cap_share',
            share: 0.75,
            threshold: 0.5,
            window: 4,
            cappedRunIds: ['r1', 'r2', 'r3'],
            raisedAt: clock.now(),
          });
          assert.deepEqual(await report('r5', true), {}, 'still above: no second alert');
          assert.deepEqual(await report('r4', true), {}, 'a repeated run report is a no-op');
          assert.deepEqual(await report('r6', false), {}, '2 of 4 is not above one half: the alert rearms');
          assert.deepEqual(await report('r7', true), {});
          assert.deepEqual((await report('r8', true)).alert?.cappedRunIds, ['r5', 'r7', 'r8']);
          await queue.recordAlertDelivery('id-1', {
            origin: 'http://127.0.0.1:9',
            ok: false,
            error: 'HTTP 500',
            status: 500,
            at: clock.now(),
          });
          assert.deepEqual(
            (await queue.alerts()).map((stored) => [stored.id, stored.webhook?.error]),
            [
              ['id-1', 'HTTP 500'],
              ['id-2', undefined],
            ],
          );
          assert.equal((await queue.stats()).alerts, 2);
          await assert.rejects(queue.recordRun({ runId: 'r9' } as never), { name: 'TypeError' });
        }));
    });

    describe('journal', () => {
      const entries = async (queue: ReviewQueue): Promise<JournalEntry[]> => (await queue.journal()).map(parseJournalEntry);
      const ofType = (list: readonly JournalEntry[], type: JournalEntry['type']) =>
        list.filter((entry) => entry.type === type).map((entry) => entry.data);
      // A queue whose journal holds every kind of entry: settings, two mode changes, a drop, three
      // verdicts, two limit changes (the tuner's window is 2) and an alert; item `e` stays open.
      const TABLES_OPTIONS = {
        backpressure: { capacity: 4, high: 0.5, low: 0.3 },
        alerts: { threshold: 0.5, window: 2 },
        tuner: { window: 2 },
      };
      const populate = async (queue: ReviewQueue): Promise<JournalEntry[]> => {
        const [a, b, , d] = await enqueueAll(queue, [
          { runId: 'a', priority: 1 },
          { runId: 'b', priority: 1 },
          { runId: 'c' },
          { runId: 'd', priority: 1 },
        ]);
        await queue.enqueue(brief('e', { priority: 2 }));
        for (const item of [a, b, d]) await queue.verdict(item?.id ?? '', approve);
        await queue.recordRun({ runId: 'r1', budgetCapped: true });
        await queue.recordRun({ runId: 'r2', budgetCapped: true });
        const journal = await entries(queue);
        assert.deepEqual(
          journal.map((entry) => entry.type),
          ['settings', 'mode_change', 'drop', 'verdict', 'verdict', 'limit_change', 'verdict', 'mode_change', 'limit_change', 'alert'],
        );
        return journal;
      };

      it('chains every settings change, mode change, drop, verdict, limit change and alert, in order', () =>
        withQueue(
          backend,
          { backpressure: { capacity: 4, high: 0.5, low: 0.3 }, alerts: { threshold: 0.5, window: 2 } },
          async ({ queue }) => {
            const [a, b, , d] = await enqueueAll(queue, [
              { runId: 'a', priority: 1 },
              { runId: 'b', priority: 1 },
              { runId: 'c' },
              { runId: 'd', priority: 1 },
            ]);
            await queue.enqueue(brief('e', { priority: 2 }));
            const verdicts = [];
            for (const item of [a, b, d]) verdicts.push((await queue.verdict(item?.id ?? '', approve)).verdict);
            for (let n = 0; n < 8; n += 1) {
              const { item } = await queue.enqueue(brief(`more-${n}`));
              verdicts.push((await queue.verdict(item?.id ?? '', approve)).verdict);
            }
            await queue.recordRun({ runId: 'r1', budgetCapped: true });
            await queue.recordRun({ runId: 'r2', budgetCapped: true });
            const journal = await entries(queue);
            assert.deepEqual(
              journal.map((entry) => entry.type),
              [
                'settings',
                'mode_change',
                'drop',
                'verdict',
                'verdict',
                'verdict',
                'mode_change',
                ...Array(6).fill('verdict'),
                'verdict',
                'limit_change',
                'verdict',
                'limit_change',
                'alert',
              ],
            );
            assert.deepEqual(
              journal.map((entry) => entry.seq),
              journal.map((_, n) => n),
            );
            assert.deepEqual(journal[0]?.data, { to: JSON.parse(JSON.stringify(queue.config)) });
            assert.deepEqual(ofType(journal, 'verdict'), verdicts);
            assert.deepEqual(
              ofType(journal, 'mode_change'),
              (await queue.modeChanges()).map((change, n) => ({
                ...change,
                itemId: n === 0 ? (journal[1]?.data.itemId as string) : d?.id,
              })),
            );
            assert.equal(journal[1]?.data.itemId, 'id-3', 'the arrival that crossed the high watermark');
            assert.deepEqual(ofType(journal, 'drop'), await queue.droppedItems());
            assert.deepEqual(ofType(journal, 'limit_change'), await queue.limitChanges());
            assert.deepEqual(ofType(journal, 'alert'), await queue.alerts());
            assert.deepEqual(await queue.verifyJournal(), {
              ok: true,
              records: journal.length,
              bytes: (await queue.journal()).reduce((sum, row) => sum + row.body.length, 0),
            });
          },
        ));

      it('journals an admission forced past a review, changing nothing else, and refuses a malformed one', () =>
        withQueue(backend, {}, async ({ queue }) => {
          const before = await queue.stats();
          const overrides = [{ code: 'admit.not_approved', reason: 'sampled and not approved by a reviewer' }];
          const forced = { runId: 'r1', by: 'ana', overrides, mode: 'patch', into: '/tmp/r1.diff' };
          assert.deepEqual(await queue.recordAdmission(forced), { seq: 1 });
          const journal = await entries(queue);
          assert.deepEqual(
            journal.map((entry) => [entry.type, entry.seq]),
            [
              ['settings', 0],
              ['admission', 1],
            ],
          );
          assert.deepEqual(journal[1]?.data, forced);
          assert.deepEqual(await queue.stats(), before);
          assert.equal((await queue.verifyJournal()).ok, true);
          await assert.rejects(queue.recordAdmission({ ...forced, overrides: [] }), /Expected a forced admission/);
          assert.equal((await queue.journal()).length, 2);
        }));

      it('agrees with the tables over a long run of held and changed limits', () =>
        withQueue(backend, {}, async ({ queue }) => {
          // Alternating decisions hold the limit (50%); runs of approvals and rejections move it.
          const decisions = [
            ...Array(12)
              .fill(0)
              .map((_, n) => (n % 2 === 0 ? 'approve' : 'reject')),
            ...Array(6).fill('approve'),
            ...Array(9).fill('reject'),
            ...Array(13)
              .fill(0)
              .map((_, n) => (n % 3 === 0 ? 'reject' : 'approve')),
          ] as ('approve' | 'reject')[];
          const results = [];
          for (const [n, decision] of decisions.entries()) {
            const { item } = await queue.enqueue(brief(`run-${n}`));
            results.push(await queue.verdict(item?.id ?? '', { ...approve, decision }));
          }
          const journal = await entries(queue);
          assert.deepEqual(
            ofType(journal, 'verdict'),
            results.map((result) => result.verdict),
          );
          assert.deepEqual(
            ofType(journal, 'limit_change'),
            results.flatMap((result) => (result.limitChanged === undefined ? [] : [result.limitChanged])),
          );
          assert.deepEqual(ofType(journal, 'limit_change'), await queue.limitChanges());
          assert.deepEqual(await queue.recentVerdicts(decisions.length), results.map((result) => result.verdict).reverse());
          // The same decisions through the pure tuner.
          let limit = 5;
          const trajectory = [];
          for (let n = 0; n < decisions.length; n += 1) {
            const window = decisions.slice(Math.max(0, n - 9), n + 1);
            const rate = window.filter((decision) => decision === 'approve').length / window.length;
            if (window.length === 10) limit = Math.min(15, Math.max(3, limit + (rate > 0.8 ? 1 : rate < 0.4 ? -1 : 0)));
            trajectory.push(limit);
          }
          assert.equal(await queue.currentLimit(), trajectory.at(-1));
          assert.equal((await queue.verifyJournal()).ok, true);
          assert.equal(await queue.depth(), 0);
        }));

      it('signs every entry it appends with its signer, over the entry before it: a rewritten, stripped or re-signed entry fails naming it', () => {
        const key = keyPair('the ledger key');
        return withStorage(backend, { ...TABLES_OPTIONS, signer: key.signer }, async ({ queue, location, tamper }) => {
          await populate(queue);
          const rows = await queue.journal();
          const required = { keys: [key.publicKey], require: true };
          const headOf = (list: readonly JournalRow[]) => ({ count: list.length, lastHash: list.at(-1)?.hash ?? '' });
          const signed = verifyJournal(rows, headOf(rows), required);
          assert.equal(signed.ok, true);
          assert.deepEqual(signed.signatures?.counts, { valid: rows.length, invalid: 0, unknown_key: 0, unsigned: 0 });

          // Someone with write access rewrites the first verdict as a reject and recomputes every later hash.
          const target = rows.findIndex((row) => row.type === 'verdict');
          const rechain = (list: readonly JournalRow[]): JournalRow[] => {
            let prevHash = list[0]?.prevHash ?? '';
            return list.map((row) => {
              const body = row.seq === target ? row.body.replace('"decision":"approve"', '"decision":"reject"') : row.body;
              const hash = chainHash(prevHash, body);
              const next = { ...row, body, prevHash, hash };
              prevHash = hash;
              return next;
            });
          };
          const forged = rechain(rows);
          const problem = (list: readonly JournalRow[], options: { require?: boolean } = {}) =>
            verifyJournal(list, headOf(list), { ...required, ...options }).signatures?.problem;
          assert.equal(verifyJournal(forged, headOf(forged)).ok, true, 'the chain alone holds');
          assert.deepEqual(problem(forged), {
            seq: target,
            detail: `journal entry ${target}'s signature does not verify with key ${key.signer.keyId}: the entry, or one before it, was changed after it was signed`,
          });
          // Its signature stripped: unsigned fails where signatures are required; where not, the next entry's signature covers it.
          const stripped = forged.map(({ signature, ...row }) => (row.seq === target ? row : { ...row, signature }));
          assert.deepEqual(problem(stripped), { seq: target, detail: `journal entry ${target} is not signed (signatures are required)` });
          assert.match(
            problem(stripped, { require: false })?.detail ?? '',
            new RegExp(`^journal entry ${target + 1}'s signature does not verify`),
          );
          // Re-signed from there on with a key that is not the ledger's.
          const other = keyPair('another key');
          const resigned = [...forged.slice(0, target), ...signJournalRows(forged.slice(target), other.signer)];
          assert.deepEqual(problem(resigned), {
            seq: target,
            detail: `journal entry ${target} is signed by key ${other.signer.keyId}, which is not one of the 1 public key(s) given`,
          });

          if (location !== undefined && tamper !== undefined) {
            // The same rewrite in the database, as `redline ledger verify` reads it.
            assert.equal((await verifyStoredJournal(location, required))?.ok, true);
            const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;
            await tamper(
              [
                ...forged
                  .slice(target)
                  .map(
                    (row) =>
                      `UPDATE review_journal SET body = ${quote(row.body)}, prev_hash = ${quote(row.prevHash)}, hash = ${quote(row.hash)} WHERE seq = ${row.seq};`,
                  ),
                `UPDATE review_state SET journal_hash = ${quote(headOf(forged).lastHash)};`,
              ].join('\n'),
            );
            const stored = await verifyStoredJournal(location, required);
            assert.equal(stored?.ok, false);
            assert.equal(stored?.signatures?.problem?.seq, target);
            await tamper(`UPDATE review_journal SET signature = NULL WHERE seq = ${target};`);
            assert.deepEqual((await verifyStoredJournal(location, required))?.signatures?.problem, {
              seq: target,
              detail: `journal entry ${target} is not signed (signatures are required)`,
            });
          }
        });
      });

      it('appends entries unsigned without a signer', () =>
        withQueue(backend, {}, async ({ queue }) => {
          await enqueueAll(queue, [{ runId: 'a' }]);
          const rows = await queue.journal();
          assert.deepEqual(
            rows.map((row) => row.signature),
            rows.map(() => undefined),
          );
          const key = keyPair('the ledger key');
          const head = { count: rows.length, lastHash: rows.at(-1)?.hash ?? '' };
          assert.deepEqual(verifyJournal(rows, head, { keys: [key.publicKey] }).signatures, {
            counts: { valid: 0, invalid: 0, unknown_key: 0, unsigned: rows.length },
            otherKeys: [],
          });
          assert.equal(verifyJournal(rows, head, { keys: [key.publicKey], require: true }).signatures?.problem?.seq, 0);
        }));

      if (backend.name !== 'memory') {
        it('is append-only, and a changed, removed or added entry fails verification naming it', () =>
          withStorage(backend, {}, async ({ queue, tamper }) => {
            const items = await enqueueAll(queue, [{ runId: 'a' }, { runId: 'b' }, { runId: 'c' }]);
            for (const item of items) await queue.verdict(item.id, approve);
            assert.equal((await queue.verifyJournal()).records, 4);
            const run = tamper as NonNullable<typeof tamper>;
            await run(`UPDATE review_journal SET body = replace(body, '"approve"', '"reject"') WHERE seq = 2`);
            assert.deepEqual((await queue.verifyJournal()).firstBad, {
              seq: 2,
              problem: 'modified',
              detail: 'journal entry 2 does not match its hash',
            });
            await run('DELETE FROM review_journal WHERE seq = 2');
            assert.deepEqual((await queue.verifyJournal()).firstBad, {
              seq: 2,
              problem: 'missing',
              detail: 'journal entry 2 is missing (next stored is 3)',
            });
            await run('DELETE FROM review_journal WHERE seq = 3');
            assert.deepEqual((await queue.verifyJournal()).firstBad, {
              seq: 2,
              problem: 'truncated',
              detail: '4 journal entries were appended, 2 are stored',
            });
          }));

        it('refuses to change or delete a journal entry through the database', () =>
          withStorage(backend, {}, async ({ queue, raw }) => {
            const [item] = await enqueueAll(queue, [{ runId: 'a' }]);
            await queue.verdict(item?.id ?? '', approve);
            const run = raw as NonNullable<typeof raw>;
            await assert.rejects(
              run("UPDATE review_journal SET body = 'x'"),
              /redline\.review\.append_only: UPDATE on review_journal refused/,
            );
            await assert.rejects(run('DELETE FROM review_journal'), /redline\.review\.append_only: DELETE on review_journal refused/);
            assert.deepEqual(await queue.verifyJournal(), {
              ok: true,
              records: 2,
              bytes: (await queue.journal()).reduce((sum, row) => sum + row.body.length, 0),
            });
          }));

        it('refuses through the database what the queue never does to its tables, and goes on working', () =>
          withStorage(backend, TABLES_OPTIONS, async ({ queue, raw }) => {
            await populate(queue);
            const run = raw as NonNullable<typeof raw>;
            const refusals: [string, RegExp][] = [
              ['DELETE FROM review_verdicts', /redline\.review\.append_only: DELETE on review_verdicts refused/],
              ["UPDATE review_verdicts SET decision = 'reject'", /redline\.review\.append_only: UPDATE on review_verdicts refused/],
              ["DELETE FROM review_items WHERE state = 'open'", /redline\.review\.append_only: DELETE on review_items refused/],
              [
                "UPDATE review_items SET state = 'open' WHERE state = 'decided'",
                /redline\.review\.append_only: UPDATE on review_items refused: an item keeps its brief, and a decided or dropped item is final/,
              ],
              ["UPDATE review_items SET state = 'open' WHERE state = 'dropped'", /UPDATE on review_items refused/],
              ["UPDATE review_items SET item = '{}' WHERE state = 'open'", /UPDATE on review_items refused/],
              ['DELETE FROM review_breaker_log', /DELETE on review_breaker_log refused/],
              ["UPDATE review_mode_changes SET to_mode = 'degraded'", /UPDATE on review_mode_changes refused/],
              ['DELETE FROM review_limit_changes', /DELETE on review_limit_changes refused/],
              ['DELETE FROM review_run_reports', /DELETE on review_run_reports refused/],
              ['DELETE FROM review_alerts', /DELETE on review_alerts refused/],
              ['UPDATE review_alerts SET share = 0', /UPDATE on review_alerts refused: an alert only gains its webhook delivery/],
              ['DELETE FROM review_state', /DELETE on review_state refused/],
              ['UPDATE review_state SET journal_count = 0', /UPDATE on review_state refused: the journal head only advances/],
              ["UPDATE review_state SET journal_hash = 'x'", /UPDATE on review_state refused/],
              [
                'UPDATE review_state SET verdicts = verdicts - 1',
                /UPDATE on review_state refused: the journal head only advances, and so do the counts/,
              ],
              ['UPDATE review_state SET dropped = 0', /UPDATE on review_state refused/],
              ['UPDATE review_state SET alerts = alerts - 1', /UPDATE on review_state refused/],
            ];
            for (const [statement, error] of refusals) await assert.rejects(run(statement), error, statement);
            if (backend.name === 'postgres') {
              for (const table of [
                'review_verdicts',
                'review_items',
                'review_breaker_log',
                'review_mode_changes',
                'review_limit_changes',
                'review_run_reports',
                'review_alerts',
                'review_state',
              ]) {
                await assert.rejects(
                  run(`TRUNCATE ${table} CASCADE`),
                  /redline\.review\.append_only: TRUNCATE on review_\w+ refused/,
                  table,
                );
              }
            }
            assert.equal((await queue.verifyJournal()).ok, true);
            // What the queue itself does to the same tables still works.
            const held = await queue.claim('bo');
            assert.equal(held?.item.runId, 'e');
            await queue.verdict(held?.item.id ?? '', { ...approve, reviewer: 'bo' });
            await queue.recordAlertDelivery((await queue.alerts())[0]?.id ?? '', {
              origin: 'http://127.0.0.1:9',
              ok: true,
              status: 200,
              at: 1,
            });
            assert.equal((await queue.verifyJournal()).ok, true);
          }));

        it('checks its tables against the journal and names the first row that disagrees', () =>
          withStorage(backend, TABLES_OPTIONS, async ({ queue, tamper }) => {
            const journal = await populate(queue);
            const run = tamper as NonNullable<typeof tamper>;
            const [first, second] = journal.filter((entry) => entry.type === 'verdict');
            const drop = journal.find((entry) => entry.type === 'drop');
            const alert = journal.find((entry) => entry.type === 'alert');
            const modes = journal.filter((entry) => entry.type === 'mode_change');
            const limits = journal.filter((entry) => entry.type === 'limit_change');
            const settings = journal.find((entry) => entry.type === 'settings');
            const [lastMode, lastLimit] = [modes.at(-1), limits.at(-1)] as JournalEntry[];
            assert.ok(first && second && drop && alert && lastMode && lastLimit && settings && modes.length === 2 && limits.length === 2);
            const changed = await queue.modeChanges();
            const lastChange = changed.at(-1) as ModeChange;
            const cases: { tamper: string; undo: string; expected: { table: string; seq?: number; detail: string } }[] = [
              {
                tamper: `UPDATE review_verdicts SET decision = 'reject' WHERE id = '${second.data.id}'`,
                undo: `UPDATE review_verdicts SET decision = 'approve' WHERE id = '${second.data.id}'`,
                expected: {
                  table: 'review_verdicts',
                  seq: second.seq,
                  detail: `verdict ${second.data.id} in review_verdicts differs from journal entry ${second.seq}: decision is "reject" in the table, "approve" in the journal`,
                },
              },
              {
                tamper:
                  "INSERT INTO review_verdicts (id, item_id, run_id, reviewer, decision, label, decided_at) SELECT 'forged', id, run_id, 'mallory', 'approve', 'unclear', 0 FROM review_items WHERE state = 'open'",
                undo: "DELETE FROM review_verdicts WHERE id = 'forged'",
                expected: { table: 'review_verdicts', detail: 'review_verdicts holds verdict forged, which no journal entry records' },
              },
              {
                tamper: `UPDATE review_items SET state = 'open' WHERE id = '${first.data.itemId}'`,
                undo: `UPDATE review_items SET state = 'decided' WHERE id = '${first.data.itemId}'`,
                expected: {
                  table: 'review_items',
                  seq: first.seq,
                  detail: `item ${first.data.itemId} is not decided in review_items, but journal entry ${first.seq} says decided`,
                },
              },
              {
                tamper: "UPDATE review_items SET state = 'decided' WHERE state = 'open'",
                undo: "UPDATE review_items SET state = 'open' WHERE run_id = 'e'",
                expected: {
                  table: 'review_items',
                  detail: `item ${(await queue.list())[0]?.item.id} is decided in review_items, but no journal entry says so`,
                },
              },
              {
                tamper: 'UPDATE review_breaker_log SET depth = 99',
                undo: `UPDATE review_breaker_log SET depth = ${drop.data.depth}`,
                expected: {
                  table: 'review_breaker_log',
                  seq: drop.seq,
                  detail: `dropped item ${(drop.data.item as { id: string }).id} in review_breaker_log differs from journal entry ${drop.seq}: depth is 99 in the table, ${drop.data.depth} in the journal`,
                },
              },
              {
                tamper: 'DELETE FROM review_mode_changes WHERE seq = (SELECT max(seq) FROM review_mode_changes)',
                undo: `INSERT INTO review_mode_changes (from_mode, to_mode, depth, changed_at) VALUES ('${lastChange.from}', '${lastChange.to}', ${lastChange.depth}, ${lastChange.at})`,
                expected: {
                  table: 'review_mode_changes',
                  seq: lastMode.seq,
                  detail: `mode change 2 of journal entry ${lastMode.seq} is missing from review_mode_changes`,
                },
              },
              {
                tamper:
                  "INSERT INTO review_limit_changes (from_limit, to_limit, approve_rate, verdict_ids, changed_at) VALUES (7, 15, 1, '[]', 0)",
                undo: 'DELETE FROM review_limit_changes WHERE to_limit = 15',
                expected: { table: 'review_limit_changes', detail: 'review_limit_changes holds 3 limit changes, the journal records 2' },
              },
              {
                tamper: 'UPDATE review_alerts SET share = 0',
                undo: `UPDATE review_alerts SET share = ${alert.data.share}`,
                expected: {
                  table: 'review_alerts',
                  seq: alert.seq,
                  detail: `alert ${alert.data.id} in review_alerts differs from journal entry ${alert.seq}: share is 0 in the table, ${alert.data.share} in the journal`,
                },
              },
              {
                tamper: "UPDATE review_state SET mode = 'degraded'",
                undo: "UPDATE review_state SET mode = 'normal'",
                expected: {
                  table: 'review_state',
                  seq: lastMode.seq,
                  detail: `the mode is degraded in review_state, but the journal's entry ${lastMode.seq} says normal`,
                },
              },
              {
                tamper: 'UPDATE review_state SET attempt_limit = 15',
                undo: `UPDATE review_state SET attempt_limit = ${lastLimit.data.to}`,
                expected: {
                  table: 'review_state',
                  seq: lastLimit.seq,
                  detail: `the attempt limit is 15 in review_state, but journal entry ${lastLimit.seq} says ${lastLimit.data.to}`,
                },
              },
              {
                tamper: `UPDATE review_state SET settings = replace(settings, '"capacity":4', '"capacity":400')`,
                undo: `UPDATE review_state SET settings = replace(settings, '"capacity":400', '"capacity":4')`,
                expected: {
                  table: 'review_state',
                  seq: settings.seq,
                  detail: `the settings in review_state are not the ones journal entry ${settings.seq} put in force`,
                },
              },
            ];
            // The running counters, each against the count over the table it stands for.
            const stats = await queue.stats();
            for (const [column, kept, detail] of [
              ['depth', stats.depth, 'the depth is 0 in review_state, but review_items holds 1 open items'],
              [
                'verdicts',
                stats.verdicts.total,
                `the verdict count is 0 in review_state, but review_verdicts holds ${stats.verdicts.total}`,
              ],
              [
                'approved',
                stats.verdicts.approved,
                `the approval count is 0 in review_state, but review_verdicts holds ${stats.verdicts.approved} approvals`,
              ],
              ['dropped', stats.dropped, `the drop count is 0 in review_state, but review_breaker_log holds ${stats.dropped}`],
              ['alerts', stats.alerts, `the alert count is 0 in review_state, but review_alerts holds ${stats.alerts}`],
            ] as const) {
              assert.ok(kept > 0, column);
              cases.push({
                tamper: `UPDATE review_state SET ${column} = 0`,
                undo: `UPDATE review_state SET ${column} = ${kept}`,
                expected: { table: 'review_state', detail },
              });
            }
            for (const { tamper: statement, undo, expected } of cases) {
              await run(statement);
              const result = await queue.verifyJournal();
              assert.deepEqual({ ok: result.ok, disagreement: result.disagreement }, { ok: false, disagreement: expected }, statement);
              await run(undo);
              assert.equal((await queue.verifyJournal()).ok, true, undo);
            }
          }));

        it('settles the state under new settings at once: the mode the depth calls for, the limit within its bounds', () =>
          withStorage(backend, { backpressure: { capacity: 10 }, tuner: { initial: 10 } }, async ({ queue, reopen }) => {
            const open = reopen as NonNullable<typeof reopen>;
            await enqueueAll(
              queue,
              Array.from({ length: 9 }, (_, n) => ({ runId: `r${n}` })),
            );
            assert.equal(await queue.mode(), 'degraded');
            // More room: depth 9 of 100 is below the low watermark (30), so the queue is normal again.
            const roomier = await open({ backpressure: { capacity: 100 }, tuner: { max: 6 } });
            assert.equal(await roomier.mode(), 'normal');
            assert.equal(await roomier.currentLimit(), 6);
            const journal = await entries(roomier);
            assert.deepEqual(
              journal.slice(-3).map((entry) => entry.type),
              ['settings', 'mode_change', 'limit_change'],
            );
            assert.deepEqual(journal.at(-2)?.data, { from: 'degraded', to: 'normal', depth: 9, at: journal.at(-2)?.at, cause: 'settings' });
            assert.deepEqual(
              (await roomier.limitChanges()).map((change) => [change.from, change.to, change.cause]),
              [[10, 6, 'settings']],
            );
            // The first queue still holds the old settings; its next enqueue takes the stored ones.
            const next = await queue.enqueue(brief('after'));
            assert.deepEqual([next.mode, next.dropped, queue.config.backpressure.capacity], ['normal', undefined, 100]);
            // Less room: depth 10 of 12 with a high watermark of 6 is degraded at once.
            const tighter = await open({ backpressure: { capacity: 12, high: 0.5, low: 0.25 } });
            assert.equal(await tighter.mode(), 'degraded');
            assert.equal((await queue.enqueue(brief('late'))).mode, 'degraded');
            assert.equal((await queue.verifyJournal()).ok, true);
          }));

        it('refuses to open a database a newer redline migrated', () =>
          withStorage(backend, {}, async ({ reopen, raw }) => {
            await (raw as NonNullable<typeof raw>)(
              "INSERT INTO review_migrations (version, name, applied_at) VALUES (99, 'from the future', 0)",
            );
            await assert.rejects((reopen as NonNullable<typeof reopen>)(), {
              message:
                'The database holds schema version 99 in review_migrations, newer than this redline knows (7): upgrade redline in every process that uses it',
            });
          }));

        it('makes every open queue follow settings another one stored', () =>
          withStorage(backend, {}, async ({ queue, reopen }) => {
            await (reopen as NonNullable<typeof reopen>)({ backpressure: { capacity: 5 }, labels: ['missing_tests'] });
            const results = [];
            for (let n = 0; n < 8; n += 1) results.push(await queue.enqueue(brief(`r${n}`)));
            assert.equal(await queue.depth(), 5, 'the stored capacity, not the one this queue opened with');
            assert.equal(results.filter((result) => result.dropped !== undefined).length, 3);
            const [item] = await queue.list();
            assert.equal(
              (await queue.verdict(item?.item.id ?? '', { reviewer: 'ana', decision: 'reject', label: 'missing_tests' })).verdict.label,
              'missing_tests',
              'a label another queue added',
            );
          }));

        it('stores its settings: a reopen without options keeps them, given options change them, journaled', () =>
          withStorage(
            backend,
            { backpressure: { capacity: 7 }, labels: ['missing_tests'], tuner: { initial: 6 } },
            async ({ queue, reopen }) => {
              const open = reopen as NonNullable<typeof reopen>;
              const plain = await open({});
              assert.deepEqual(plain.config, queue.config);
              assert.equal(plain.config.backpressure.capacity, 7);
              assert.ok(plain.config.labels.labels.includes('missing_tests'));
              const changed = await open({ tuner: { max: 12 } });
              assert.equal(changed.config.tuner.max, 12);
              assert.equal(changed.config.tuner.initial, 6, 'settings not given keep their stored values');
              assert.equal(changed.config.backpressure.capacity, 7);
              assert.equal((await open({ tuner: { max: 12 } })).config.tuner.max, 12);
              const settings = (await entries(changed)).filter((entry) => entry.type === 'settings');
              assert.equal(settings.length, 2, 'the same settings again journal nothing');
              assert.deepEqual(settings[1]?.data, {
                from: JSON.parse(JSON.stringify(queue.config)),
                to: JSON.parse(JSON.stringify(changed.config)),
              });
              assert.equal((await open({})).config.tuner.max, 12, 'every later open runs with the change');
              await assert.rejects(open({ backpressure: { capacity: 0 } }), {
                name: 'TypeError',
                message: 'Expected capacity to be a positive integer, got 0',
              });
              assert.equal((await open({})).config.backpressure.capacity, 7, 'a refused change stores nothing');
            },
          ));
      }
    });

    if (backend.name !== 'memory') {
      describe('storage', () => {
        it('keeps items, mode, limit, logs and verdicts across a reopen', () =>
          withStorage(backend, { backpressure: { capacity: 3 } }, async ({ queue, reopen }) => {
            const verdicts = [];
            for (let n = 0; n < 10; n += 1) {
              const { item } = await queue.enqueue(brief(`v${n}`));
              verdicts.push((await queue.verdict(item?.id ?? '', approve)).verdict);
            }
            const [a] = await enqueueAll(queue, [
              { runId: 'a', priority: 1 },
              { runId: 'b', priority: 1 },
              { runId: 'c' },
              { runId: 'd', priority: 1 },
            ]);
            const again = await (reopen as NonNullable<typeof reopen>)({ backpressure: { capacity: 3 }, tuner: { initial: 9 } });
            assert.equal(await again.currentLimit(), 6, 'the learned limit, not the configured start');
            assert.deepEqual(await again.recentVerdicts(10), verdicts.reverse());
            assert.deepEqual(
              (await again.list()).map((entry) => entry.item.runId),
              ['a', 'b', 'd'],
            );
            assert.deepEqual(
              (await again.droppedItems()).map((entry) => entry.item.runId),
              ['c'],
            );
            assert.deepEqual(await again.modeChanges(), await queue.modeChanges());
            assert.equal(await again.mode(), 'degraded');
            assert.deepEqual(await again.get(a?.id ?? ''), await queue.get(a?.id ?? ''));
          }));

        it('lives beside the ledger in its file or schema, with its own migrations table', () =>
          withStorage(backend, {}, async ({ queue, openLedger, tables }) => {
            const ledger = await (openLedger as NonNullable<typeof openLedger>)();
            await ledger.append({ runId: 'run-1', seq: 0, type: 'run.started', at: 1, data: { mission: { id: 'm', taskType: 't' } } });
            await queue.enqueue(brief('run-1'));
            assert.deepEqual(
              (await ledger.runs()).map((run) => run.runId),
              ['run-1'],
            );
            assert.equal(await queue.depth(), 1);
            const names = await (tables as NonNullable<typeof tables>)();
            for (const table of [
              'records',
              'runs',
              'redline_migrations',
              'review_migrations',
              'review_items',
              'review_breaker_log',
              'review_verdicts',
              'review_mode_changes',
              'review_limit_changes',
              'review_state',
              'review_run_reports',
              'review_alerts',
              'review_journal',
            ]) {
              assert.ok(names.includes(table), `${table} is missing from ${names.join(', ')}`);
            }
          }));
      });
    }
  });
}
