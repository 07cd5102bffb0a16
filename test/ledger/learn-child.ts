/**
 * One process of the priors contract's concurrent-learn case. It opens the ledger, prints `ready`, waits
 * for a line on stdin so that every process learns at the same moment, then learns `count` runs.
 *
 * Usage: node --import tsx test/ledger/learn-child.ts <sqlite|postgres> <location> <taskType> <count>
 */
import { once } from 'node:events';
import { openLedgerAt } from './backends.js';
import { learnedRun } from './records.js';

const [name, location, taskType, count] = process.argv.slice(2);
if ((name !== 'sqlite' && name !== 'postgres') || location === undefined || taskType === undefined || !Number.isInteger(Number(count))) {
  throw new TypeError(`Expected <sqlite|postgres> <location> <taskType> <count>, got ${JSON.stringify(process.argv.slice(2))}`);
}
const ledger = await openLedgerAt(name, location);
try {
  process.stdout.write('ready\n');
  await once(process.stdin, 'data');
  process.stdin.destroy();
  for (let index = 0; index < Number(count); index += 1) await ledger.learn(taskType, learnedRun(index));
} finally {
  await ledger.close();
}
