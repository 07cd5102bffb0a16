import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Backpressure, ModeChange, QueueMode } from '../../src/review/backpressure.js';
import type { ReviewItem, ReviewQueue } from '../../src/review/review-queue.js';
import { brief, type testRuntime } from './fixtures.js';

type Op =
  | { kind: 'enqueue'; priority: number }
  | { kind: 'claim'; reviewer: number }
  | { kind: 'verdict'; pick: number; approve: boolean }
  | { kind: 'tick'; ms: number };

/** A queue configuration, with watermarks as whole percents so expectations are exact, and the operations to apply. */
export interface BackpressureSequence {
  readonly policy: Backpressure;
  readonly highPct: number;
  readonly lowPct: number;
  readonly ops: readonly Op[];
}

const LEASE_MS = 1_000;

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('enqueue' as const), priority: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('claim' as const), reviewer: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('verdict' as const), pick: fc.nat(), approve: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 2 * LEASE_MS }) }) },
);

/** Small capacities, any watermarks (low below high), and up to 60 operations. */
export function backpressureSequence(): fc.Arbitrary<BackpressureSequence> {
  return fc
    .record({ capacity: fc.integer({ min: 1, max: 8 }), highPct: fc.integer({ min: 1, max: 100 }) })
    .chain(({ capacity, highPct }) =>
      fc.record({
        capacity: fc.constant(capacity),
        highPct: fc.constant(highPct),
        lowPct: fc.integer({ min: 0, max: highPct - 1 }),
        ops: fc.array(op, { minLength: 1, maxLength: 60 }),
      }),
    )
    .map(({ capacity, highPct, lowPct, ops }) => ({ policy: { capacity, high: highPct / 100, low: lowPct / 100 }, highPct, lowPct, ops }));
}

/**
 * Applies the operations and checks the queue's rules (docs/review.md) after each one: the depth never
 * exceeds the capacity; an item is dropped only at capacity and only when no droppable item (queued, not
 * held by a reviewer) or the newcomer ranks lower; every dropped item is in the circuit-breaker log, whole; the mode switches
 * exactly when the depth crosses a watermark, and every switch is recorded with that depth.
 */
export async function checkBackpressureSequence(
  queue: ReviewQueue,
  { policy, highPct, lowPct, ops }: BackpressureSequence,
  clock: ReturnType<typeof testRuntime>,
): Promise<void> {
  const { capacity } = policy;
  const arrival = new Map<string, number>();
  const dropped: ReviewItem[] = [];
  const switches: Omit<ModeChange, 'at'>[] = [];
  let mode: QueueMode = 'normal';
  let depth = 0;
  const verdicts = { approved: 0, rejected: 0 };

  const expectMode = (after: number, change: ModeChange | undefined, what: string): void => {
    const to: QueueMode =
      mode === 'normal' && after * 100 > highPct * capacity
        ? 'degraded'
        : mode === 'degraded' && after * 100 < lowPct * capacity
          ? 'normal'
          : mode;
    if (to === mode) {
      assert.equal(change, undefined, `${what}: no watermark was crossed at depth ${after}`);
      return;
    }
    // Depth moves by one, so a switch happens on the first depth past the watermark.
    assert.equal(
      after,
      to === 'degraded' ? Math.floor((highPct * capacity) / 100) + 1 : Math.ceil((lowPct * capacity) / 100) - 1,
      `${what}: switched at the watermark`,
    );
    assert.deepEqual(
      change && { from: change.from, to: change.to, depth: change.depth },
      { from: mode, to, depth: after },
      `${what}: the switch is reported`,
    );
    switches.push({ from: mode, to, depth: after });
    mode = to;
  };

  for (const [n, step] of ops.entries()) {
    const what = `op ${n} ${JSON.stringify(step)}`;
    const before = await queue.list();
    assert.equal(before.length, depth, `${what}: the list holds the depth`);
    if (step.kind === 'enqueue') {
      const runId = `run-${n}`;
      arrival.set(runId, n);
      const result = await queue.enqueue(brief(runId, { priority: step.priority }));
      if (result.dropped === undefined) {
        assert.ok(depth < capacity, `${what}: nothing dropped at capacity`);
        depth += 1;
      } else {
        assert.ok(depth >= capacity, `${what}: dropped below capacity`);
        const victim = { priority: result.dropped.priority, arrival: arrival.get(result.dropped.runId) as number };
        const candidates = [
          ...before.filter((entry) => entry.status === 'queued').map((entry) => entry.item),
          { runId, priority: step.priority },
        ];
        for (const other of candidates) {
          const order = arrival.get(other.runId) as number;
          assert.ok(
            !(other.priority < victim.priority || (other.priority === victim.priority && order < victim.arrival)),
            `${what}: dropped ${result.dropped.runId} while ${other.runId} ranks lower`,
          );
        }
        dropped.push(result.dropped);
      }
      expectMode(depth, result.modeChanged, what);
      assert.equal(result.mode, mode, `${what}: the reported mode`);
    } else if (step.kind === 'claim') {
      const next = before.find((entry) => entry.status === 'queued');
      const claimed = await queue.claim(`reviewer-${step.reviewer}`, { leaseMs: LEASE_MS });
      assert.equal(claimed?.item.id, next?.item.id, `${what}: claims the first unclaimed item in review order`);
    } else if (step.kind === 'verdict') {
      const entry = before[step.pick % Math.max(1, before.length)];
      if (entry === undefined) continue;
      const result = await queue.verdict(entry.item.id, {
        reviewer: entry.claim?.reviewer ?? 'anyone',
        decision: step.approve ? 'approve' : 'reject',
        label: 'unclear',
      });
      depth -= 1;
      verdicts[step.approve ? 'approved' : 'rejected'] += 1;
      expectMode(depth, result.modeChanged, what);
    } else {
      clock.advance(step.ms);
    }
    const stored = await queue.depth();
    assert.ok(stored <= capacity, `${what}: depth ${stored} above capacity ${capacity}`);
    assert.equal(stored, depth, `${what}: depth`);
    assert.equal(await queue.mode(), mode, `${what}: stored mode`);
  }
  // The counters the queue keeps as it goes agree with a count over what it holds.
  const stats = await queue.stats();
  const listed = await queue.list();
  assert.equal(stats.depth, listed.length, 'stats: the depth is the count of items in the queue');
  assert.equal(stats.claimed, listed.filter((entry) => entry.status === 'claimed').length, 'stats: live claims');
  assert.equal(stats.dropped, dropped.length, 'stats: the drop count');
  assert.deepEqual(stats.verdicts, { total: verdicts.approved + verdicts.rejected, ...verdicts }, 'stats: the verdict counts');
  const journal = await queue.verifyJournal();
  assert.equal(journal.ok, true, `the counters verify: ${JSON.stringify(journal)}`);
  assert.deepEqual(
    (await queue.droppedItems()).map((entry) => entry.item),
    dropped,
    'every dropped item is in the circuit-breaker log, whole',
  );
  assert.deepEqual(
    (await queue.modeChanges()).map(({ from, to, depth: at }) => ({ from, to, depth: at })),
    switches,
    'every switch is recorded',
  );
}
