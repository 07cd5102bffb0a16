import { LedgerError } from '../errors/ledger-error.js';
import { RecordParseError } from '../errors/record-parse-error.js';
import type { LedgerRecord, RunRow, StoredRecord } from './ledger.js';
import type { NewRun } from './ledger-store.js';
import { parseRunRecord, type RunRecord } from './run-records.js';

/**
 * The run that a `run.started` record opens. A `run.started` whose data does not parse still opens a
 * run (of mission `unknown`, task type `default`): the ledger stores what it is given, and `verifyLedger`
 * reports the record.
 */
export function openedRun(record: LedgerRecord, stored: StoredRecord): NewRun {
  if (record.type !== 'run.started' || record.seq !== 0) {
    throw new LedgerError({
      code: 'ledger.not_started',
      runId: record.runId,
      message: `run ${record.runId} has no run.started record: expected record 0 to start it, got ${record.type} ${record.seq}`,
    });
  }
  const started = readable(stored);
  const mission = started?.type === 'run.started' ? started.data.mission : undefined;
  return {
    runId: record.runId,
    missionId: mission?.id ?? 'unknown',
    taskType: mission?.taskType ?? 'default',
    startedAt: record.at,
    ...(started === undefined ? {} : linkFields(started)),
  };
}

/** The stored record parsed, or undefined when it does not parse. */
function readable(stored: StoredRecord): RunRecord | undefined {
  try {
    return parseRunRecord(stored);
  } catch (error) {
    if (error instanceof RecordParseError) return undefined;
    throw error;
  }
}

/**
 * The plan hash and the resolved run a `run.started` record names, as its run row keeps them (for the
 * indexed look-ups of linked runs and of earlier runs of the same plan); nothing for other records.
 */
export function linkFields(record: RunRecord): { planHash?: string; resolves?: string } {
  if (record.type !== 'run.started') return {};
  const { plan, resolves } = record.data;
  return {
    ...(plan === undefined ? {} : { planHash: plan.hash }),
    ...(resolves === undefined ? {} : { resolves: resolves.runId }),
  };
}

/**
 * The seal fields a stored `run.sealed` record sets on its run row, read from its body (for a store
 * without the SQL backends' triggers): a field the seal's data lacks stays unset, as with the triggers.
 */
export function sealFields(body: string): Pick<RunRow, 'outcome' | 'verification' | 'stopReason'> {
  const { data = {} } = JSON.parse(body) as { data?: Record<string, unknown> };
  const field = (value: unknown): string | undefined => (value === undefined || value === null ? undefined : String(value));
  const [outcome, verification, stopReason] = [field(data.outcome), field(data.verification), field(data.stopReason)];
  return {
    ...(outcome === undefined ? {} : { outcome }),
    ...(verification === undefined ? {} : { verification }),
    ...(stopReason === undefined ? {} : { stopReason }),
  };
}
