import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GENESIS } from '../../src/core/hash-chain.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { sqlBackends } from './backends.js';

// A ledger verified while another connection appends to it: each run's row and records must come from
// one snapshot, or a record committed between reading them shows as `appended` (or the row as ahead).
for (const backend of sqlBackends) {
  describe(`verifying a live ledger: ${backend.name}`, () => {
    it('reports no broken run while another connection appends', async () => {
      const opened = await backend.open();
      const writer = await opened.reopen();
      try {
        const runId = 'live';
        await writer.append({
          runId,
          seq: 0,
          type: 'run.started',
          at: 1,
          data: { mission: { id: 'm', taskType: 't' }, pad: 'x'.repeat(200) },
        });
        let done = false;
        const writing = (async () => {
          for (let seq = 1; seq <= 400; seq += 1)
            await writer.append({ runId, seq, type: 'attempt', at: 1 + seq, data: { attempt: seq, pad: 'y'.repeat(200) } });
          done = true;
        })();
        let checks = 0;
        while (!done) {
          const broken = (await verifyLedger(opened.ledger)).problems;
          assert.deepEqual(broken, [], `verification ${checks + 1} while appending`);
          checks += 1;
        }
        await writing;
        const final = await verifyLedger(opened.ledger);
        assert.deepEqual([final.ok, final.runs, final.records], [true, 1, 401]);
        assert.ok(checks >= 5, `only ${checks} verifications ran during the appends`);
        assert.notEqual((await opened.ledger.runs())[0]?.lastHash, GENESIS);
      } finally {
        await writer.close();
        await opened.close();
      }
    });
  });
}
