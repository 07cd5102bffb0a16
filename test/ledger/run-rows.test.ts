import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LedgerRecord } from '../../src/ledger/ledger.js';
import { verifyRun } from '../../src/ledger/verify.js';
import { backends, withLedger } from './backends.js';
import { appendAll, exportAll, recordOf, SEAL, story } from './records.js';

const refused = (code: string) => ({ name: 'LedgerError', code });

// The memory backend kept rows of its own making; one chained ledger over every store keeps the row the
// records make, as the SQL backends' triggers do.
for (const backend of backends) {
  describe(`Ledger run rows follow the records: ${backend.name}`, () => {
    const open = () => backend.open();

    it("takes an imported run's seal fields from its seal record, not from the exported row", () =>
      withLedger(open, async ({ ledger: source }) => {
        await appendAll(source, story('imported'));
        const [exported] = await exportAll(source);
        assert.ok(exported);
        // The chain still verifies: a run row's seal fields are not part of it.
        const claimed = { ...exported.run, outcome: 'blocked', verification: 'unverified', stopReason: 'human_gate' };
        assert.equal(verifyRun(claimed, exported.records).ok, true);
        await withLedger(open, async ({ ledger }) => {
          await ledger.import(claimed, exported.records);
          assert.deepEqual(await ledger.runs(), [{ ...claimed, ...SEAL }]);
        });
      }));

    it('leaves a seal field the seal record lacks unset on the run row', () =>
      withLedger(open, async ({ ledger }) => {
        const [started, attempt] = story('terse', { sealed: false });
        assert.ok(started && attempt);
        const seal: LedgerRecord = {
          runId: 'terse',
          seq: 2,
          type: 'run.sealed',
          at: 1_002,
          data: { outcome: 'complete', verification: 'verified' },
        };
        await appendAll(ledger, [started, attempt, seal]);
        const [row] = await ledger.runs();
        assert.ok(row);
        const { runId: _runId, missionId: _missionId, taskType: _taskType, startedAt: _startedAt, ...head } = row;
        assert.deepEqual(head, { recordCount: 3, lastHash: row.lastHash, sealed: true, outcome: 'complete', verification: 'verified' });
      }));

    it('refuses a record 0 that is not run.started as not starting the run, whether or not the run exists', () =>
      withLedger(open, async ({ ledger }) => {
        const stored = await appendAll(ledger, story('open', { sealed: false }));
        await assert.rejects(ledger.append(recordOf('open', 0, 'attempt')), refused('ledger.not_started'));
        await assert.rejects(ledger.append(recordOf('new', 0, 'attempt')), refused('ledger.not_started'));
        assert.deepEqual(await ledger.stored('open'), stored);
        assert.deepEqual(
          (await ledger.runs()).map((run) => run.runId),
          ['open'],
        );
      }));
  });
}
