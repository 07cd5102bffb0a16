import type { RunTally } from '../ledger/ledger.js';

/** How long one period of a trend is. */
export type Period = 'day' | 'week';

/** The sealed runs that started in one period. */
export interface TrendRow {
  /** The period's first day (UTC midnight, ms since the epoch); a week starts on Monday. */
  readonly start: number;
  readonly runs: number;
  /** Runs by outcome, as their seals name it. */
  readonly outcomes: ReadonlyMap<string, number>;
  /** Runs by stop reason. */
  readonly stopReasons: ReadonlyMap<string, number>;
  /** Dollars spent, as the seals counted it. */
  readonly costUsd: number;
}

/** Outcomes, stop reasons and spend over time, one row per period from the first run's to the last's. */
export interface RunTrends {
  readonly period: Period;
  /**
   * Every period from the first to the last with runs, oldest first: periods without runs included, unless
   * there would be more than 1,000 of them (then only those with runs).
   */
  readonly rows: readonly TrendRow[];
  /** Every stop reason seen, most runs first (then by name). */
  readonly stopReasons: readonly string[];
}

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** At most this many periods are listed from the first to the last; beyond, only the periods with runs. */
const MAX_FILLED_PERIODS = 1_000;
/** Up to this many days between the first run and the last, a trend counts by day; beyond, by week. */
export const DAILY_UP_TO_DAYS = 62;

/** The Monday (UTC) that starts the week of `day`: 1970-01-01 was a Thursday, three days after one. */
function weekOf(day: number): number {
  const sinceMonday = (((Math.floor(day / DAY_MS) + 3) % 7) + 7) % 7;
  return day - sinceMonday * DAY_MS;
}

interface Row {
  runs: number;
  costUsd: number;
  readonly outcomes: Map<string, number>;
  readonly stopReasons: Map<string, number>;
}

const add = (counts: Map<string, number>, key: string, runs: number): void => {
  counts.set(key, (counts.get(key) ?? 0) + runs);
};

/**
 * The trends of a ledger's tally: by day when the runs span at most {@link DAILY_UP_TO_DAYS} days, else
 * by week (or as `period` says). Memory holds one row per period.
 * @example
 * const { rows } = runTrends((await ledgerTally(ledger, { taskType: 'ci-fix' })).groups);
 */
export function runTrends(groups: readonly RunTally[], period?: Period): RunTrends {
  // A loop, not Math.min(...days): a tally may have more groups than a call takes arguments.
  let [first, last] = [Infinity, -Infinity];
  for (const { day } of groups) [first, last] = [Math.min(first, day), Math.max(last, day)];
  const chosen = period ?? (groups.length === 0 || last - first <= DAILY_UP_TO_DAYS * DAY_MS ? 'day' : 'week');
  const startOf = chosen === 'day' ? (day: number) => day : weekOf;
  const rows = new Map<number, Row>();
  const reasons = new Map<string, number>();
  for (const group of groups) {
    const start = startOf(group.day);
    const row = rows.get(start) ?? { runs: 0, costUsd: 0, outcomes: new Map(), stopReasons: new Map() };
    row.runs += group.runs;
    row.costUsd += group.costUsd;
    add(row.outcomes, group.outcome, group.runs);
    add(row.stopReasons, group.stopReason, group.runs);
    add(reasons, group.stopReason, group.runs);
    rows.set(start, row);
  }
  const step = chosen === 'day' ? DAY_MS : WEEK_MS;
  const toRow = (start: number): TrendRow => {
    const row = rows.get(start);
    return {
      start,
      runs: row?.runs ?? 0,
      outcomes: row?.outcomes ?? new Map(),
      stopReasons: row?.stopReasons ?? new Map(),
      costUsd: row?.costUsd ?? 0,
    };
  };
  // Start times are the runs' clocks': a ledger whose runs span centuries gets its periods with runs only.
  const span = groups.length === 0 ? 0 : (startOf(last) - startOf(first)) / step + 1;
  const starts =
    span <= MAX_FILLED_PERIODS
      ? Array.from({ length: span }, (_, index) => startOf(first) + index * step)
      : [...rows.keys()].sort((a, b) => a - b);
  const filled = starts.map(toRow);
  const stopReasons = [...reasons].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0)).map(([reason]) => reason);
  return { period: chosen, rows: filled, stopReasons };
}
