import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runFile } from './run-command.js';
import { runSummary, table } from './format.js';

interface DemoEntry {
  readonly mission: string;
  readonly expect: { readonly outcome: string; readonly verification: string; readonly stopReason: string; readonly attempts: number };
}

/** The package root: where `examples/` ships. */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs every bundled example mission; exit 0 when each ended as documented in examples/demo.json. */
export async function demo({ json = false, evidenceDir }: { json?: boolean; evidenceDir?: string }, print: (line: string) => void, progress: (line: string) => void): Promise<number> {
  const entries = JSON.parse(await readFile(path.join(PACKAGE_ROOT, 'examples', 'demo.json'), 'utf8')) as DemoEntry[];
  const rows: string[][] = [];
  let mismatches = 0;
  for (const entry of entries) {
    const { result } = await runFile(path.join(PACKAGE_ROOT, entry.mission), { json: true, ...(evidenceDir === undefined ? {} : { evidenceDir }) }, json ? print : () => {}, progress);
    const got = { outcome: result.outcome, verification: result.verification, stopReason: result.stopReason, attempts: result.attempts };
    const asDocumented = (Object.keys(entry.expect) as (keyof DemoEntry['expect'])[]).every((key) => entry.expect[key] === got[key]);
    if (!asDocumented) mismatches += 1;
    if (!json) progress(`${asDocumented ? 'ok  ' : 'DIFF'} ${result.mission}: ${result.outcome} / ${result.verification} / ${result.stopReason} after ${result.attempts} attempt(s)`);
    rows.push([result.mission, result.outcome, result.verification, result.stopReason, String(result.attempts), asDocumented ? 'yes' : `no (expected ${JSON.stringify(entry.expect)})`]);
    if (json && !asDocumented) progress(`not as documented: ${JSON.stringify(runSummary(result))} expected ${JSON.stringify(entry.expect)}`);
  }
  if (!json) {
    print(table(['mission', 'outcome', 'verification', 'stop reason', 'attempts', 'as documented'], rows));
    print(`\n${entries.length - mismatches} of ${entries.length} missions ended as documented (examples/README.md).`);
  }
  return mismatches === 0 ? 0 : 1;
}
