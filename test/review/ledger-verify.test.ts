import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyCommand } from '../../src/cli/ledger-command.js';
import { verifyStoredJournal } from '../../src/review/open-review-queue.js';
import { backends } from './backends.js';
import { brief, testRuntime } from './fixtures.js';

const approve = { reviewer: 'ana', decision: 'approve', label: 'unclear' } as const;

// `redline ledger verify` (the handler, in-process) on a queue whose tables were edited past their
// guards, as someone holding the database file or a superuser role could.
for (const backend of backends.filter((candidate) => candidate.name !== 'memory')) {
  describe(`ledger verify checks the review queue's tables: ${backend.name}`, () => {
    it('reports the queue broken, naming the verdict deleted from review_verdicts, and exits 1', async () => {
      const opened = await backend.open(testRuntime().options());
      try {
        const { queue, tamper, location, openLedger } = opened as Required<typeof opened>;
        // The ledger's own tables beside the queue's, as `redline run` leaves them.
        await openLedger();
        const items = [];
        for (const runId of ['a', 'b']) items.push((await queue.enqueue(brief(runId))).item?.id ?? '');
        for (const id of items) await queue.verdict(id, approve);
        const verdicts = await queue.recentVerdicts();
        assert.equal((await queue.stats()).verdicts.total, 2);
        const lines: string[] = [];
        const output = { print: (line: string) => lines.push(line), progress: () => undefined };
        assert.equal(await verifyCommand({ ledger: location }, output), 0);
        // A local key in the working directory (a PostgreSQL ledger's) adds what it found of the entries' signatures.
        assert.match(lines.at(-1) ?? '', /^review queue journal verifies \(3 entries\)(;|$)/);

        await tamper('DELETE FROM review_verdicts');
        assert.equal((await queue.recentVerdicts()).length, 0, 'the edit went through');
        const first = verdicts.at(-1)?.id;
        const detail = `verdict ${first} of journal entry 1 is missing from review_verdicts`;
        lines.length = 0;
        assert.equal(await verifyCommand({ ledger: location }, output), 1);
        assert.deepEqual(lines.slice(-1), [`BROKEN review queue: review_verdicts disagrees with the journal — ${detail}`]);
        lines.length = 0;
        assert.equal(await verifyCommand({ ledger: location, json: true }, output), 1);
        const json = JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>;
        assert.deepEqual(json, {
          journal: 'review',
          ok: false,
          records: 3,
          bytes: json.bytes,
          // No key was given nor found: the entries, appended unsigned, are counted.
          signatures: { counts: { valid: 0, invalid: 0, unknown_key: 0, unsigned: 3 }, otherKeys: [] },
          disagreement: { table: 'review_verdicts', seq: 1, detail },
        });
        assert.deepEqual((await verifyStoredJournal(location))?.disagreement, { table: 'review_verdicts', seq: 1, detail });
      } finally {
        await opened.close();
      }
    });
  });
}
