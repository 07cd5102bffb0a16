import { GENESIS } from '../core/hash-chain.js';
import type { AttemptScore, RunRow, RunSummary, StoredRecord } from './ledger.js';
import type { NewRun } from './ledger-store.js';
import { guardsOf } from './tally-rows.js';

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
  /** The summary the seal derived (summary-sql.ts): guards as JSON text, NULL when not tallied. */
  guards: string | null;
  shadow: string | null;
  cost_usd: number | null;
}

/** A `scores` row: a tallied run's scored attempt. */
export interface ScoreDbRow {
  run_id: string;
  seq: number;
  candidate: string;
  score: number;
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

/** Each run's summary from its row and its `scores` rows (ordered by run, then `seq`), for a page that `verifyLedger` reads. */
export function toSummaries(rows: readonly RunDbRow[], scores: readonly ScoreDbRow[]): ReadonlyMap<string, RunSummary> {
  const byRun = new Map<string, AttemptScore[]>(rows.map((row) => [row.run_id, []]));
  for (const { run_id, seq, candidate, score } of scores) byRun.get(run_id)?.push({ seq, candidate, score: Number(score) });
  return new Map(
    rows.map((row) => [
      row.run_id,
      {
        ...(row.guards === null ? {} : { guards: guardsOf(row.guards) }),
        ...(row.shadow === null ? {} : { shadow: row.shadow }),
        ...(row.cost_usd === null ? {} : { costUsd: Number(row.cost_usd) }),
        scores: byRun.get(row.run_id) ?? [],
      },
    ]),
  );
}
