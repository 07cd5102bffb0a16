import { OUTCOMES } from '../core/outcome.js';
import type { RunFilter } from '../ledger/ledger.js';
import type { RunsFilter } from './run-urls.js';

const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` day's start (UTC) in ms; undefined when absent. */
function dayStart(name: string, text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const at = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(at)) throw new TypeError(`Expected ${name} to be a day such as 2026-12-02, got ${JSON.stringify(text.slice(0, 40))}`);
  return at;
}

/** The filters of the runs and reports pages a query string names; empty values are no filter. */
export function runsFilterOf(query: (name: string) => string | undefined): RunsFilter {
  const filter: { -readonly [K in keyof RunsFilter]: string } = {};
  for (const name of ['missionId', 'outcome', 'taskType', 'from', 'to'] as const) {
    const value = query(name);
    if (value !== undefined && value !== '') filter[name] = value;
  }
  return filter;
}

/**
 * A page's filters as a ledger's run filter: `to` is the last day included.
 * @throws {TypeError} for an outcome that is none, or a day that is not `YYYY-MM-DD`.
 */
export function ledgerFilterOf(filter: RunsFilter): RunFilter {
  if (filter.outcome !== undefined && !(OUTCOMES as readonly string[]).includes(filter.outcome))
    throw new TypeError(`Expected outcome to be one of ${OUTCOMES.join(', ')}, got ${JSON.stringify(filter.outcome.slice(0, 40))}`);
  const since = dayStart('from', filter.from);
  const until = dayStart('to', filter.to);
  return {
    ...(filter.missionId === undefined ? {} : { missionId: filter.missionId }),
    ...(filter.outcome === undefined ? {} : { outcome: filter.outcome }),
    ...(filter.taskType === undefined ? {} : { taskType: filter.taskType }),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until: until + DAY_MS }),
  };
}
