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
