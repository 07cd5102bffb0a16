import type { Ledger, RunRow } from './ledger.js';
import { startedLink } from './run-link.js';

/** One run of a lineage, with how deep it sits under the first run and what its link recorded. */
export interface LineageEntry {
  readonly run: RunRow;
  /** 0 for the first run; a linked run sits one below the run it resolves. */
  readonly depth: number;
  /** The run it resolves. */
  readonly resolves?: string;
  /** The resolution note of its link. */
  readonly note?: string;
}

/** Runs followed at most: a lineage is a handful of runs; a longer one is cut here rather than read whole. */
const MAX_LINEAGE = 1_000;

/**
 * The chain of linked runs a run belongs to: back through the runs it resolves to the first one, then
 * forward through every run that resolves each (depth first, in start order). Each step is an indexed
 * look-up; a link that names a run not in the ledger ends the walk back there.
 */
export async function lineage(ledger: Ledger, runId: string): Promise<LineageEntry[] | undefined> {
  const row = async (id: string): Promise<RunRow | undefined> => (await ledger.runs({ runId: id }))[0];
  let first = await row(runId);
  if (first === undefined) return undefined;
  const seen = new Set([first.runId]);
  for (let back = first.resolves; back !== undefined && !seen.has(back) && seen.size < MAX_LINEAGE;) {
    const earlier = await row(back);
    if (earlier === undefined) break;
    seen.add(earlier.runId);
    first = earlier;
    back = earlier.resolves;
  }
  const entries: LineageEntry[] = [];
  const visited = new Set<string>();
  const visit = async (run: RunRow, depth: number): Promise<void> => {
    if (visited.has(run.runId) || visited.size >= MAX_LINEAGE) return;
    visited.add(run.runId);
    const link = run.resolves === undefined ? {} : startedLink(await ledger.stored(run.runId));
    entries.push({
      run,
      depth,
      ...(run.resolves === undefined ? {} : { resolves: run.resolves }),
      ...(link.note === undefined ? {} : { note: link.note }),
    });
    for (const next of await ledger.runs({ resolves: run.runId })) await visit(next, depth + 1);
  };
  await visit(first, 0);
  return entries;
}
