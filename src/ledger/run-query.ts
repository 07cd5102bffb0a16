import type { PageKey } from './history.js';
import type { RunFilter, RunRow } from './ledger.js';

/** A run row field a filter asks to equal a value, by its name in {@link RunRow}. */
export type RunField = 'sealed' | 'taskType' | 'runId' | 'missionId' | 'planHash' | 'resolves' | 'outcome';

/** One condition of a filter: a field of the run row equal to a value, or the start at or after (before) a time. */
export type RunCondition =
  | { readonly field: RunField; readonly op: '='; readonly value: string | boolean }
  | { readonly field: 'startedAt'; readonly op: '>=' | '<'; readonly value: number };

/**
 * Which runs a store reads, in start order (then by id): those meeting every condition, after `after`
 * (the keyset of the previous page), at most `limit` of them (all when undefined). `newestFirst` reads
 * the same order backwards, `after` then being the keyset of the previous (newer) page.
 */
export interface RunQuery {
  readonly where: readonly RunCondition[];
  readonly after?: PageKey | undefined;
  readonly limit?: number;
  readonly newestFirst?: boolean;
}

/** A filter as the conditions every store applies the same way: the one reading of {@link RunFilter}. */
export function runConditions(filter: RunFilter = {}): readonly RunCondition[] {
  const conditions: RunCondition[] = [];
  const equal = (field: RunField, value: string | boolean | undefined): void => {
    if (value !== undefined) conditions.push({ field, op: '=', value });
  };
  if (filter.unsealed === true) equal('sealed', false);
  equal('taskType', filter.taskType);
  if (filter.since !== undefined) conditions.push({ field: 'startedAt', op: '>=', value: filter.since });
  if (filter.until !== undefined) conditions.push({ field: 'startedAt', op: '<', value: filter.until });
  equal('runId', filter.runId);
  equal('missionId', filter.missionId);
  equal('planHash', filter.planHash);
  equal('resolves', filter.resolves);
  equal('outcome', filter.outcome);
  return conditions;
}

/** Start order, then by id (by UTF-16 code unit, as the stores' indexes order plain ids). */
export function startOrder(a: PageKey, b: PageKey): number {
  return a.startedAt - b.startedAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0);
}

/** Whether a run row meets every condition, as the SQL stores' `WHERE` does (a missing field equals nothing). */
export function meets(run: RunRow, where: readonly RunCondition[]): boolean {
  return where.every((condition) =>
    condition.op === '>='
      ? run.startedAt >= condition.value
      : condition.op === '<'
        ? run.startedAt < condition.value
        : run[condition.field] === condition.value,
  );
}
