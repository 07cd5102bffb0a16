import { recycledStorageSuite } from '../helpers/recycled-storage-suite.js';
import { dumpPostgres, dumpSqlite, type Dump } from '../helpers/storage-dump.js';
import type { ReviewQueue } from '../../src/review/review-queue.js';
import { backends, connectPostgres, POSTGRES_URL, type ReviewBackend } from './backends.js';
import { brief, testRuntime } from './fixtures.js';

// The contract runs most of its cases on recycled storage (backends.ts, recycled-storage.ts): these
// tests prove that a queue cannot tell it from fresh storage, after a case left a row in every table.

const SETTINGS = { backpressure: { capacity: 4, high: 0.5, low: 0.3 }, alerts: { threshold: 0.5, window: 2 }, tuner: { window: 2 } };

/** Leaves a row in every table the queue keeps: items queued, claimed, decided and dropped, logs, alerts, reviewers, rules, an admission. */
async function fillEveryTable(queue: ReviewQueue): Promise<void> {
  for (const [runId, priority] of [
    ['a', 1],
    ['b', 1],
    ['c', 0],
    ['d', 1],
    ['e', 2],
  ] as const)
    await queue.enqueue(brief(runId, { priority }), { tags: ['sampled'] });
  const approve = { reviewer: 'ana', decision: 'approve', label: 'unclear' } as const;
  for (const entry of (await queue.list()).slice(1)) await queue.verdict(entry.item.id, approve);
  await queue.claim('bo');
  await queue.recordRun({ runId: 'r1', budgetCapped: true });
  await queue.recordRun({ runId: 'r2', budgetCapped: true });
  await queue.recordAlertDelivery((await queue.alerts())[0]?.id ?? '', { origin: 'http://127.0.0.1:9', ok: true, status: 200, at: 1 });
  await queue.addReviewer('cy', 'a'.repeat(64));
  await queue.addFilterRule({ label: 'code_error', match: { taskType: 'x' }, by: 'ana' });
  await queue.recordAdmission({
    runId: 'r1',
    by: 'ana',
    overrides: [{ code: 'admit.not_approved', reason: 'sampled and not approved by a reviewer' }],
    mode: 'patch',
    into: '/tmp/r1.diff',
  });
}

const dumpOf = (backend: ReviewBackend, location: string | undefined): Promise<Dump> | Dump =>
  backend.name === 'sqlite'
    ? dumpSqlite(location ?? '')
    : dumpPostgres(new URL(location ?? POSTGRES_URL).searchParams.get('schema') ?? '', connectPostgres);

for (const backend of backends.filter((each) => each.name !== 'memory'))
  recycledStorageSuite(`recycled review storage: ${backend.name}`, {
    name: backend.name,
    async freshDump() {
      const fresh = await backend.open(testRuntime().options(SETTINGS));
      try {
        return await dumpOf(backend, fresh.location);
      } finally {
        await fresh.close();
      }
    },
    openRecycled: () => backend.openRecycled(testRuntime().options(SETTINGS)),
    dropRecycled: () => backend.dropRecycled(),
    fill: ({ queue }) => fillEveryTable(queue),
    dump: (location) => dumpOf(backend, location),
  });
