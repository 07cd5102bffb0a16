import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GENESIS } from '../../src/core/hash-chain.js';
import { ChainedLedger } from '../../src/ledger/chained-ledger.js';
import { chainRecord } from '../../src/ledger/chain.js';
import { MemoryLedgerStore } from '../../src/ledger/memory/memory-ledger-store.js';
import type { PriorsStore } from '../../src/ledger/priors-store.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { appendAll, recordOf, story } from './records.js';

const refused = (code: string) => ({ name: 'LedgerError', code });

/** Priors nobody reads in these tests. */
const noPriors: PriorsStore = {
  read: async () => undefined,
  update: async () => {},
};

// The memory store refuses what the SQL backends' triggers refuse, so that the one chained ledger can
// cache heads over it as over a database: a stale head is refused, never forked.
describe('MemoryLedgerStore', () => {
  it('refuses an append from a ledger whose cached head is stale, instead of forking the chain', async () => {
    const store = new MemoryLedgerStore();
    const [ledger, other] = [new ChainedLedger(store, noPriors), new ChainedLedger(store, noPriors)];
    await appendAll(ledger, story('shared', { steps: 1, sealed: false }));
    await other.append(recordOf('shared', 2, 'decision'));
    await assert.rejects(ledger.append(recordOf('shared', 3, 'attempt')), refused('ledger.out_of_order'));
    assert.equal((await ledger.stored('shared')).length, 3);
    // The refusal dropped the stale head: trying again chains onto the other ledger's record.
    await ledger.append(recordOf('shared', 3, 'attempt'));
    const totals = await verifyLedger(other);
    assert.deepEqual([totals.ok, totals.records], [true, 4]);
  });

  it('inserts a run with all its records or not at all', async () => {
    const store = new MemoryLedgerStore();
    const [started, attempt, decision] = story('whole', { steps: 2, sealed: false });
    assert.ok(started && attempt && decision);
    const first = chainRecord(GENESIS, started);
    const second = chainRecord(first.hash, attempt);
    // Record 2 chained to record 0: the store refuses it, and with it the whole run.
    const forked = chainRecord(first.hash, decision);
    const run = { runId: 'whole', missionId: 'contract', taskType: 'default', startedAt: started.at };
    await assert.rejects(store.insertRun(run, [first, second, forked]), refused('ledger.out_of_order'));
    assert.equal(await store.run('whole'), undefined);
    await store.insertRun(run, [first, second]);
    assert.deepEqual(await store.records('whole'), [first, second]);
    assert.deepEqual(await store.run('whole'), { ...run, recordCount: 2, lastHash: second.hash, sealed: false });
  });
});
