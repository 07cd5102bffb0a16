import { LedgerError } from '../errors/ledger-error.js';
import type { LedgerRecord, RunRow } from './ledger.js';

/** The run row that a `run.started` record opens. */
export function openedRun(record: LedgerRecord, hash: string): RunRow {
  const mission = record.data.mission as { id?: unknown; taskType?: unknown } | undefined;
  if (record.type !== 'run.started' || record.seq !== 0) {
    throw new LedgerError({
      code: 'ledger.not_started',
      runId: record.runId,
      message: `run ${record.runId} has no run.started record: expected record 0 to start it, got ${record.type} ${record.seq}`,
    });
  }
  return {
    runId: record.runId,
    missionId: typeof mission?.id === 'string' ? mission.id : 'unknown',
    taskType: typeof mission?.taskType === 'string' ? mission.taskType : 'default',
    startedAt: record.at,
    recordCount: 1,
    lastHash: hash,
    sealed: false,
    ...linkFields(record),
  };
}

/**
 * The plan hash and the resolved run a `run.started` record names, as its run row keeps them (for the
 * indexed look-ups of linked runs and of earlier runs of the same plan); nothing for other records.
 */
export function linkFields(record: LedgerRecord): { planHash?: string; resolves?: string } {
  if (record.type !== 'run.started') return {};
  const plan = record.data.plan as { hash?: unknown } | undefined;
  const resolves = record.data.resolves as { runId?: unknown } | undefined;
  return {
    ...(typeof plan?.hash === 'string' ? { planHash: plan.hash } : {}),
    ...(typeof resolves?.runId === 'string' ? { resolves: resolves.runId } : {}),
  };
}

/** The seal fields a `run.sealed` record sets on its run row. */
export function sealFields(record: LedgerRecord): { outcome: string; verification: string; stopReason: string } {
  return {
    outcome: String(record.data.outcome),
    verification: String(record.data.verification),
    stopReason: String(record.data.stopReason),
  };
}
