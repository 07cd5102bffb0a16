// A process that starts a run under the review queue in each ledger named in argv, each cut off after three
// records before anything reaches the queue, then dies: what `redline ledger recover` then finds in each.
import type { Ledger } from '../../src/ledger/ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { openReviewQueue } from '../../src/review/open-review-queue.js';
import type { ReviewQueue } from '../../src/review/review-queue.js';

/** `target` with one method replaced; the others bound to it (its private fields need the real `this`). */
function replacing<T extends object>(target: T, key: string, replacement: unknown): T {
  return new Proxy(target, {
    get(inner, name) {
      if (name === key) return replacement;
      const value: unknown = Reflect.get(inner, name);
      return typeof value === 'function' ? value.bind(inner) : value;
    },
  });
}
const mission = defineMission({ id: 'dies', goal: 'make it pass', budgets: { maxAttempts: 3 } });
for (const db of process.argv.slice(2)) {
  const ledger = await SqliteLedger.open({ database: db });
  const queue = await openReviewQueue(db);
  let appended = 0;
  const dying = replacing<Ledger>(ledger, 'append', async (record: Parameters<Ledger['append']>[0]) =>
    appended++ < 3 ? ledger.append(record) : Promise.reject(new Error('process killed')),
  );
  const deadQueue = replacing<ReviewQueue>(queue, 'enqueue', async () => Promise.reject(new Error('process killed')));
  await runMission({
    mission,
    proposer: functionProposer(() => ({ value: 'x' })),
    checks: [],
    ledger: dying,
    handoff: { queue: deadQueue },
  }).catch(() => undefined);
}
// Dies without closing anything, as a killed process would.
process.exit(0);
