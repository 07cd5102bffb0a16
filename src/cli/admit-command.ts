import path from 'node:path';
import { admitRun } from '../ledger/admit.js';
import { withLedger } from './ledger-command.js';
import type { Output } from './run-command.js';

/** `redline admit RUN --to DIR`: applies a verified, complete run's candidate. */
export async function admitCommand(runId: string, { to, ledger }: { to: string; ledger?: string }, { print }: Output): Promise<number> {
  return withLedger(ledger, async (open) => {
    const admission = await admitRun(open, runId, path.resolve(to));
    print(`admitted run ${runId} into ${to}: ${admission.written.length} file(s) written${admission.deleted.length > 0 ? `, ${admission.deleted.length} deleted` : ''}`);
    for (const file of admission.written) print(`  wrote   ${file}`);
    for (const file of admission.deleted) print(`  deleted ${file}`);
    return 0;
  });
}
