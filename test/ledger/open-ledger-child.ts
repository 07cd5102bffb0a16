/**
 * One process of the contract's concurrent-open case. It loads everything, prints `ready`, waits for a
 * line on stdin so that all processes open at the same moment, then opens (and migrates) the ledger and
 * writes one sealed run.
 *
 * Usage: node --import tsx test/ledger/open-ledger-child.ts <sqlite|postgres> <location> <runId>
 */
import { once } from 'node:events';
import { openLedgerAt } from './backends.js';
import { appendAll, story } from './records.js';

const [name, location, runId] = process.argv.slice(2);
if ((name !== 'sqlite' && name !== 'postgres') || location === undefined || runId === undefined) {
  throw new TypeError(`Expected <sqlite|postgres> <location> <runId>, got ${JSON.stringify(process.argv.slice(2))}`);
}
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.destroy();
const ledger = await openLedgerAt(name, location);
try {
  await appendAll(ledger, story(runId));
} finally {
  await ledger.close();
}
