import { GENESIS } from '../core/hash-chain.js';
import type { RunRow, StoredRecord } from './ledger.js';
import type { NewRun } from './ledger-store.js';

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

/** A new run's parameters for `insertRun` (sql-statements.ts): its row starts with no records, at the genesis hash. */
export const runValues = (run: NewRun): unknown[] => [
  run.runId,
  run.missionId,
  run.taskType,
  run.startedAt,
  GENESIS,
  run.planHash ?? null,
  run.resolves ?? null,
];

/** A record's parameters for `insertRecord` (sql-statements.ts). */
export const recordValues = (row: StoredRecord): unknown[] => [row.runId, row.seq, row.type, row.body, row.prevHash, row.hash];
