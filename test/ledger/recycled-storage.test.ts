import type { Ledger } from '../../src/ledger/ledger.js';
import { recycledStorageSuite } from '../helpers/recycled-storage-suite.js';
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

for (const backend of sqlBackends)
  recycledStorageSuite(`recycled ledger storage: ${backend.name}`, {
    name: backend.name,
    async freshDump() {
      const fresh = await backend.storage();
      try {
        await (await openLedgerAt(backend.name, fresh.location)).close();
        return await dumpOf(backend, fresh.location);
      } finally {
        await fresh.dispose();
      }
    },
    openRecycled: () => backend.openRecycled(),
    dropRecycled: () => backend.dropRecycled(),
    fill: ({ ledger }) => fillEveryTable(ledger),
    dump: (location) => dumpOf(backend, location),
  });
