import { LedgerError } from '../errors/ledger-error.js';
import type { RunRow, StoredRecord } from './ledger.js';

/** A `runs` row as either SQL backend returns it (SQLite: integers; PostgreSQL: BIGINT as text, BOOLEAN). */
export interface RunDbRow {
  run_id: string;
  mission_id: string;
  task_type: string;
  started_at: number | string;
  record_count: number;
  last_hash: string;
  sealed: number | boolean;
  outcome: string | null;
  verification: string | null;
  stop_reason: string | null;
  plan_hash: string | null;
  resolves: string | null;
}

/** A `records` row. */
export interface RecordDbRow {
  run_id: string;
  seq: number;
  type: string;
  body: string;
  prev_hash: string;
  hash: string;
}

export const toRun = (row: RunDbRow): RunRow => ({
  runId: row.run_id,
  missionId: row.mission_id,
  taskType: row.task_type,
  startedAt: Number(row.started_at),
  recordCount: row.record_count,
  lastHash: row.last_hash,
  sealed: row.sealed === true || row.sealed === 1,
  ...(row.outcome === null ? {} : { outcome: row.outcome }),
  ...(row.verification === null ? {} : { verification: row.verification }),
  ...(row.stop_reason === null ? {} : { stopReason: row.stop_reason }),
  ...(row.plan_hash === null ? {} : { planHash: row.plan_hash }),
  ...(row.resolves === null ? {} : { resolves: row.resolves }),
});

export const toStored = (row: RecordDbRow): StoredRecord => ({
  runId: row.run_id,
  seq: row.seq,
  type: row.type,
  body: row.body,
  prevHash: row.prev_hash,
  hash: row.hash,
});

/**
 * Turns the triggers' refusals (`redline.ledger.<code>: …`) into ledger errors with stable codes; a
 * duplicate primary key (two writers racing for one `seq`) is `ledger.out_of_order`.
 */
export function refusal(error: unknown, runId: string, duplicateKey: boolean): never {
  const message = (error as Error)?.message ?? String(error);
  const code = /redline\.(ledger\.[a-z_]+)/.exec(message)?.[1] ?? (duplicateKey ? 'ledger.out_of_order' : 'ledger.write_failed');
  throw new LedgerError({ code, runId, message: `run ${runId}: ${message.replace(/^redline\.ledger\.[a-z_]+: /, '')}`, cause: error });
}
