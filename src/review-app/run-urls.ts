/** The runs page's filters, as the query string gives them (dates are UTC days, `YYYY-MM-DD`). */
export interface RunsFilter {
  readonly missionId?: string;
  readonly outcome?: string;
  readonly taskType?: string;
  readonly from?: string;
  readonly to?: string;
}

/** The reports page's filters: the runs page's but the outcome (the reports break runs down by it). */
export type ReportsFilter = Omit<RunsFilter, 'outcome'>;

function url(route: string, filter: RunsFilter, before?: string): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) if (typeof value === 'string' && value !== '') params.set(name, value);
  if (before !== undefined) params.set('before', before);
  const text = params.toString();
  return text === '' ? route : `${route}?${text}`;
}

/** The URL of the runs page with `filter`, from the newest run or after the run `before` names. */
export const runsUrl = (filter: RunsFilter, before?: string): string => url('/runs', filter, before);

/** The URL of the reports page with `filter`'s mission, task type and days. */
export function reportsUrl(filter: RunsFilter): string {
  const { outcome: _outcome, ...kept } = filter;
  return url('/reports', kept);
}
