import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Ledger } from '../../src/ledger/ledger.js';
import { dumpPostgres, dumpSqlite, type Dump } from '../helpers/storage-dump.js';
import { connectPostgres, openLedgerAt, sqlBackends, type SqlBackend } from './backends.js';
import { appendAll, story } from './records.js';

// The ledger contract runs most of its cases on recycled storage (backends.ts): these tests prove that a
// ledger cannot tell it from fresh storage, after a case left a row in every table.

const dumpOf = (backend: SqlBackend, location: string): Promise<Dump> | Dump =>
  backend.name === 'sqlite' ? dumpSqlite(location) : dumpPostgres(location, connectPostgres);

/** Leaves a row in every table the ledger keeps: runs, their records, learned priors. */
async function fillEveryTable(ledger: Ledger): Promise<void> {
  await appendAll(ledger, story('sealed', { steps: 3 }));
  await appendAll(ledger, story('open', { sealed: false }));
  // A sealed run with a scored attempt: the seal derives a row of the scores table from it.
  const [started, attempt, sealed] = story('scored', { steps: 1 });
  await appendAll(ledger, [started!, { ...attempt!, data: { ...attempt!.data, summary: { candidateHash: 'h1', score: 0.5 } } }, sealed!]);
  await ledger.learn('default', [0.5, 0.75]);
}

for (const backend of sqlBackends) {
  describe(`recycled ledger storage: ${backend.name}`, () => {
    after(() => backend.dropRecycled());

    it('opens as fresh storage opens, even after a case left a row in every table', async () => {
      const fresh = await backend.storage();
      let expected: Dump;
      try {
        await (await openLedgerAt(backend.name, fresh.location)).close();
        expected = await dumpOf(backend, fresh.location);
      } finally {
        await fresh.dispose();
      }

      const used = await backend.openRecycled();
      try {
        await fillEveryTable(used.ledger);
        const filled = (await dumpOf(backend, used.location)).rows as Record<string, unknown[]>;
        assert.deepEqual(
          Object.keys(filled).filter((table) => filled[table]?.length === 0),
          [],
          'every table holds a row before the storage goes back',
        );
      } finally {
        await used.close();
      }

      const again = await backend.openRecycled();
      try {
        // PostgreSQL hands the emptied schema out again; SQLite copies the migrated file anew.
        if (backend.name === 'postgres') assert.equal(again.location, used.location, 'the same schema, reused');
        assert.deepEqual(await dumpOf(backend, again.location), expected);
      } finally {
        await again.close();
      }
    });
  });
}
