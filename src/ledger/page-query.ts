import type { PageKey } from './history.js';
import type { RunFilter } from './ledger.js';

/**
 * The part of a keyset page query after `FROM runs`: the filter, the row comparison that resumes after
 * the previous page, the start order and the limit, with its parameters. `placeholder(n)` spells the
 * n-th parameter (`?` for SQLite, `$n` for PostgreSQL); `unsealed` is how the backend stores an unsealed
 * run's `sealed` column. The comparison and the order are the same `(started_at, run_id)` pair, so the
 * pages walk the `runs_in_start_order` index and no run is skipped or read twice.
 */
export function pageQuery({
  filter = {},
  after,
  limit,
  placeholder,
  unsealed,
}: {
  filter: RunFilter | undefined;
  after: PageKey | undefined;
  limit: number;
  placeholder: (n: number) => string;
  unsealed: 0 | false;
}): { readonly sql: string; readonly params: readonly unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return placeholder(params.length);
  };
  if (filter.unsealed === true) conditions.push(`sealed = ${param(unsealed)}`);
  if (filter.taskType !== undefined) conditions.push(`task_type = ${param(filter.taskType)}`);
  if (filter.since !== undefined) conditions.push(`started_at >= ${param(filter.since)}`);
  if (filter.runId !== undefined) conditions.push(`run_id = ${param(filter.runId)}`);
  if (filter.missionId !== undefined) conditions.push(`mission_id = ${param(filter.missionId)}`);
  if (filter.planHash !== undefined) conditions.push(`plan_hash = ${param(filter.planHash)}`);
  if (filter.resolves !== undefined) conditions.push(`resolves = ${param(filter.resolves)}`);
  if (after !== undefined) conditions.push(`(started_at, run_id) > (${param(after.startedAt)}, ${param(after.runId)})`);
  const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
  return { sql: `${where} ORDER BY started_at, run_id LIMIT ${param(limit)}`, params };
}
