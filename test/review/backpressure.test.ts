import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  admit,
  backpressure,
  BACKPRESSURE,
  dropVictim,
  nextMode,
  release,
  watermark,
  type Admission,
  type DepthChange,
  type QueueMode,
} from '../../src/review/backpressure.js';

describe('backpressure policy', () => {
  it('defaults to capacity 50 with watermarks at 80% and 30%, and refuses impossible settings', () => {
    assert.deepEqual(backpressure(), { capacity: 50, high: 0.8, low: 0.3 });
    assert.deepEqual(BACKPRESSURE, backpressure());
    assert.ok(Object.isFrozen(backpressure({ capacity: 10 })));
    assert.throws(() => backpressure({ capacity: 2.5 }), {
      name: 'TypeError',
      message: 'Expected capacity to be a positive integer, got 2.5',
    });
    assert.throws(() => backpressure({ high: 1.2 }), {
      name: 'TypeError',
      message: 'Expected the high watermark to be a fraction in (0, 1], got 1.2',
    });
    assert.throws(() => backpressure({ low: -0.1 }), /Expected the low watermark to be a fraction in \[0, high\), got -0.1/);
  });

  it('switches to degraded only above the high watermark and back only below the low one', () => {
    const policy = backpressure();
    const mode = (from: QueueMode, depth: number): QueueMode => nextMode({ mode: from, depth, policy });
    assert.deepEqual(
      [40, 41].map((depth) => mode('normal', depth)),
      ['normal', 'degraded'],
    );
    assert.deepEqual(
      [15, 14].map((depth) => mode('degraded', depth)),
      ['degraded', 'normal'],
    );
    // Between the watermarks the mode holds, whichever it is.
    assert.deepEqual([mode('normal', 30), mode('degraded', 30)], ['normal', 'degraded']);
  });

  it('puts a watermark on the whole number a float product stands for', () => {
    assert.equal(0.57 * 100, 56.99999999999999);
    assert.equal(watermark(0.57, 100), 57);
    assert.equal(nextMode({ mode: 'normal', depth: 57, policy: backpressure({ capacity: 100, high: 0.57 }) }), 'normal');
  });

  it('drops the lowest priority, the oldest among equals, the newcomer only when it is strictly lowest', () => {
    const queued = [
      { priority: 2, seq: 1 },
      { priority: 1, seq: 2 },
      { priority: 1, seq: 3 },
    ];
    assert.deepEqual(dropVictim({ queued, incoming: { priority: 1, seq: 4 } }), { priority: 1, seq: 2 });
    assert.deepEqual(dropVictim({ queued, incoming: { priority: 0, seq: 4 } }), { priority: 0, seq: 4 });
    assert.deepEqual(dropVictim({ queued: [], incoming: { priority: 9, seq: 4 } }), { priority: 9, seq: 4 });
  });

  it('admits below capacity and drops at capacity, reporting the switch with its depth', () => {
    const policy = backpressure({ capacity: 5 });
    const incoming = { priority: 0, seq: 9 };
    assert.deepEqual(admit({ policy, mode: 'normal', depth: 3, droppable: [], incoming, at: 7 }), { depth: 4, mode: 'normal' });
    assert.deepEqual(admit({ policy, mode: 'normal', depth: 4, droppable: [], incoming, at: 7 }), {
      depth: 5,
      mode: 'degraded',
      modeChanged: { from: 'normal', to: 'degraded', depth: 5, at: 7 },
    });
    assert.deepEqual(admit({ policy, mode: 'degraded', depth: 5, droppable: [{ priority: 1, seq: 1 }], incoming, at: 7 }), {
      drop: incoming,
      depth: 5,
      mode: 'degraded',
    });
    assert.deepEqual(release({ policy, mode: 'degraded', depth: 2, at: 8 }), {
      depth: 1,
      mode: 'normal',
      modeChanged: { from: 'degraded', to: 'normal', depth: 1, at: 8 },
    });
  });

  it('keeps depth within capacity, drops only at capacity and only the lowest, and switches exactly at the watermarks', () => {
    type Item = { priority: number; seq: number; held: boolean };
    type Step = { kind: 'enqueue'; priority: number; held: boolean } | { kind: 'remove'; pick: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record({ kind: fc.constant('enqueue' as const), priority: fc.integer({ min: 0, max: 4 }), held: fc.boolean() }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
    );
    const settings = fc
      .record({ capacity: fc.integer({ min: 1, max: 20 }), highPct: fc.integer({ min: 1, max: 100 }) })
      .chain(({ capacity, highPct }) =>
        fc.record({ capacity: fc.constant(capacity), highPct: fc.constant(highPct), lowPct: fc.integer({ min: 0, max: highPct - 1 }) }),
      );
    fc.assert(
      fc.property(settings, fc.array(step, { maxLength: 200 }), ({ capacity, highPct, lowPct }, steps) => {
        const policy = backpressure({ capacity, high: highPct / 100, low: lowPct / 100 });
        // `held` items stand for claimed ones: never offered as droppable.
        let items: Item[] = [];
        let mode: QueueMode = 'normal';
        let seq = 0;
        for (const next of steps) {
          const before = items.length;
          let change: DepthChange;
          if (next.kind === 'enqueue') {
            const incoming = { priority: next.priority, seq: seq++, held: next.held };
            const droppable = items.filter((item) => !item.held);
            const result: Admission<Item> = admit({ policy, mode, depth: before, droppable, incoming, at: 0 });
            const victim: Item | undefined = result.drop;
            assert.equal(victim !== undefined, before >= capacity, 'a drop exactly at capacity');
            if (victim !== undefined) {
              for (const other of [...droppable, incoming])
                assert.ok(
                  !(other.priority < victim.priority || (other.priority === victim.priority && other.seq < victim.seq)),
                  'nothing droppable ranks lower',
                );
            }
            items = [...items, incoming].filter((item) => item !== victim);
            change = result;
          } else {
            if (before === 0) continue;
            items.splice(next.pick % before, 1);
            change = release({ policy, mode, depth: before, at: 0 });
          }
          assert.equal(change.depth, items.length);
          assert.ok(items.length <= capacity);
          const crossed: boolean = mode === 'normal' ? items.length * 100 > highPct * capacity : items.length * 100 < lowPct * capacity;
          assert.deepEqual(
            change.modeChanged,
            crossed ? { from: mode, to: mode === 'normal' ? 'degraded' : 'normal', depth: items.length, at: 0 } : undefined,
          );
          mode = change.mode;
        }
      }),
      { numRuns: 1_000 },
    );
  });
});
