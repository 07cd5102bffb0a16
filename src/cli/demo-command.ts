import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { displayLocation, ledgerLocation, openLedger } from '../ledger/open-ledger.js';
import { openSigner } from '../ledger/signing-key.js';
import { loadMission } from '../mission/load.js';
import { recoverBeforeRun, runMissionFile, type Output } from './run-command.js';
import { runSummary, table } from './format.js';
import { clean, jsonLine } from './terminal-text.js';

interface DemoEntry {
  readonly mission: string;
  readonly expect: { readonly outcome: string; readonly verification: string; readonly stopReason: string; readonly attempts: number };
}

/** The package root: where `examples/` ships. */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs every bundled example mission; exit 0 when each ended as documented in examples/demo.json. */
export async function demo({ json = false, ledger: explicit }: { json?: boolean; ledger?: string }, output: Output): Promise<number> {
  const { print, progress } = output;
  const entries = JSON.parse(await readFile(path.join(PACKAGE_ROOT, 'examples', 'demo.json'), 'utf8')) as DemoEntry[];
  const location = ledgerLocation(explicit, process.cwd());
  const ledger = await openLedger(location);
  const rows: string[][] = [];
  let mismatches = 0;
  try {
    const { signer } = await openSigner({ location });
    await recoverBeforeRun({ ledger, location, output, signer });
    for (const entry of entries) {
      const result = await runMissionFile({
        mission: await loadMission(path.join(PACKAGE_ROOT, entry.mission)),
        ledger,
        ledgerName: displayLocation(location),
        // The demo reruns the same plans on purpose (an example oscillates every time): recorded when it overrides.
        options: { json: true, forceSamePlan: true },
        output: { print: json ? print : () => {}, progress },
        signer,
      });
      const got = { outcome: result.outcome, verification: result.verification, stopReason: result.stopReason, attempts: result.attempts };
      const asDocumented = (Object.keys(entry.expect) as (keyof DemoEntry['expect'])[]).every((key) => entry.expect[key] === got[key]);
      if (!asDocumented) mismatches += 1;
      if (!json)
        progress(
          `${asDocumented ? 'ok  ' : 'DIFF'} ${clean(result.mission)}: ${result.outcome} / ${result.verification} / ${result.stopReason} after ${result.attempts} attempt(s)`,
        );
      else if (!asDocumented) progress(`not as documented: ${jsonLine(runSummary(result))} expected ${jsonLine(entry.expect)}`);
      rows.push([
        clean(result.mission),
        result.outcome,
        result.verification,
        result.stopReason,
        String(result.attempts),
        asDocumented ? 'yes' : `no (expected ${JSON.stringify(entry.expect)})`,
        result.runId,
      ]);
    }
  } finally {
    await ledger.close();
  }
  if (!json) {
    print(table(['mission', 'outcome', 'verification', 'stop reason', 'attempts', 'as documented', 'run'], rows));
    print(`\n${entries.length - mismatches} of ${entries.length} missions ended as documented (examples/README.md).`);
    const shown = clean(displayLocation(location));
    print(`Every record is in ${shown}: redline ledger show <run> --ledger ${shown}`);
  }
  return mismatches === 0 ? 0 : 1;
}
