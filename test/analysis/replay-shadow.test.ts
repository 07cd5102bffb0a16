import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { replayPolicies } from '../../src/analysis/replay.js';
import { recordFixture } from './shadow-runs.js';

const POLICIES = [
  { name: 'threshold', guards: [{ threshold: { bar: 0.8 } }] },
  { name: 'confirm-2', guards: [{ confirm: { k: 2, bar: 0.8 } }] },
];

describe('replay with shadow verdicts', () => {
  it("reports a policy's true reach where it stops on the candidate the shadow judged, worked out by hand", async () => {
    const ledger = new MemoryLedger();
    await recordFixture(ledger);
    const [threshold, confirm] = await replayPolicies(ledger, POLICIES, { taskType: 'fix' });
    // Recorded: R1 pass, R2 fail, R3 pass, R4 fail, R5 pass are judged (R6's shadow errored): 3 of 5.
    // threshold stops R1 at 2 (good1), R2 at 1, R3 at 1 (good3 — the candidate R3 sealed after 4), R4 and R5 on
    // their budget, R6 at 1: every stop is on the judged candidate, so 5 judged, 3 truly reached.
    assert.deepEqual(threshold?.shadow, { judged: 5, trueReached: 3, recordedJudged: 5, recordedTrueReached: 3 });
    // confirm-2 would go on past R1, R2 and R6's recorded end (unknown); it stops R3 at 4 (pass), R4 (fail)
    // and R5 (pass) on their budget: 3 judged, 2 truly reached.
    assert.deepEqual(confirm?.shadow, { judged: 3, trueReached: 2, recordedJudged: 5, recordedTrueReached: 3 });
    assert.deepEqual([confirm?.stoppedLater, confirm?.reached], [3, 1]);
  });

  it('leaves the shadow field out where no run has a shadow verdict', async () => {
    const ledger = new MemoryLedger();
    await recordFixture(ledger);
    const [threshold] = await replayPolicies(ledger, POLICIES, { taskType: 'other' });
    assert.equal(threshold?.runs, 1);
    assert.equal('shadow' in (threshold ?? {}), false);
  });
});
