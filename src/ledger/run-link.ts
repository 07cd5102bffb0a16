import { RecordParseError } from '../errors/record-parse-error.js';
import type { Ledger, RunRow, StoredRecord } from './ledger.js';
import { parseRunRecord, type RunRecord } from './run-records.js';

/** Outcomes a linked run may resolve: a sealed run that needs an external decision or repair. */
export const RESOLVABLE: ReadonlySet<string> = new Set(['blocked', 'failed_with_evidence']);

/** What a run's `run.started` record says about its plan and link, read from the stored row. */
export interface StartedLink {
  /** The run it resolves. */
  readonly resolves?: string;
  /** The resolution note recorded with the link. */
  readonly note?: string;
  readonly planHash?: string;
}

/** The plan and link a run's first stored record names; nothing when it names none or is not readable. */
export function startedLink(records: readonly StoredRecord[]): StartedLink {
  const first = records[0];
  if (first === undefined || first.type !== 'run.started') return {};
  let started: RunRecord;
  try {
    started = parseRunRecord(first);
  } catch (error) {
    if (error instanceof RecordParseError) return {};
    throw error;
  }
  if (started.type !== 'run.started') return {};
  const { resolves, plan } = started.data;
  return {
    ...(resolves === undefined ? {} : { resolves: resolves.runId }),
    ...(resolves?.note === undefined ? {} : { note: resolves.note }),
    ...(plan === undefined ? {} : { planHash: plan.hash }),
  };
}

/**
 * Why a run's link does not hold, or undefined when it does (or the run names no link): the run row must
 * keep the link its `run.started` names (the look-ups of linked runs read the row), and the run it
 * resolves must be in the ledger, sealed `blocked` or `failed_with_evidence`. One indexed look-up per
 * linked run; runs without a link cost nothing.
 */
export async function linkProblem(ledger: Ledger, run: RunRow, records: readonly StoredRecord[]): Promise<string | undefined> {
  const { resolves } = startedLink(records);
  if (resolves !== run.resolves)
    return `the run row links to ${run.resolves === undefined ? 'no run' : `run ${run.resolves}`}, but run.started to ${resolves === undefined ? 'none' : `run ${resolves}`}`;
  if (resolves === undefined) return undefined;
  const [target] = await ledger.runs({ runId: resolves });
  if (target === undefined) return `it resolves run ${resolves}, which is not in this ledger`;
  if (!target.sealed) return `it resolves run ${resolves}, which is not sealed`;
  if (!RESOLVABLE.has(target.outcome ?? ''))
    return `it resolves run ${resolves}, which was sealed ${target.outcome ?? 'without an outcome'}, not blocked or failed_with_evidence`;
  return undefined;
}
