import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LedgerTally } from '../../src/ledger/ledger.js';
import { TallyCache } from '../../src/ledger/tally-cache.js';

const tally = (runs: number): LedgerTally => ({
  groups: [{ day: 0, outcome: 'complete', stopReason: 'demand_passed', guards: [], runs, costUsd: 0 }],
  spread: { candidates: 0, scores: 0, m2: 0 },
});

describe('TallyCache', () => {
  it('keeps a tally while its count of sealed runs holds, reads again when it changes, and drops the least recently used', async () => {
    const cache = new TallyCache(2);
    const reads: string[] = [];
    const read = (key: string, runs: number) => async (): Promise<LedgerTally> => {
      reads.push(`${key}@${runs}`);
      return tally(runs);
    };
    assert.equal((await cache.get('a', 1, read('a', 1))).groups[0]?.runs, 1);
    assert.equal((await cache.get('a', 1, read('a', 1))).groups[0]?.runs, 1);
    assert.equal((await cache.get('a', 2, read('a', 2))).groups[0]?.runs, 2);
    await cache.get('b', 1, read('b', 1));
    await cache.get('a', 2, read('a', 2));
    await cache.get('c', 1, read('c', 1));
    // `b` was the least recently used when `c` came, so it is read again, which drops `a` in turn.
    await cache.get('b', 1, read('b', 1));
    await cache.get('a', 2, read('a', 2));
    assert.deepEqual(reads, ['a@1', 'a@2', 'b@1', 'c@1', 'b@1', 'a@2']);
  });

  it('does not keep a failed read', async () => {
    const cache = new TallyCache();
    await assert.rejects(
      cache.get('a', 1, () => Promise.reject(new Error('database gone'))),
      /database gone/,
    );
    assert.equal((await cache.get('a', 1, async () => tally(3))).groups[0]?.runs, 3);
    assert.throws(() => new TallyCache(0), /Expected size to be a positive integer, got 0/);
  });
});
