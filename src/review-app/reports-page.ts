import type { RunTrends, TrendRow } from '../analysis/run-trends.js';
import type { ReachRow, StopQualityReport } from '../analysis/stop-quality.js';
import { OUTCOMES } from '../core/outcome.js';
import { barChart, type BarSeries } from './bar-chart.js';
import { html, type Html } from './html.js';
import { navTable } from './nav-table.js';
import { reachChart } from './reach-chart.js';
import { runFilterForm } from './run-filter-form.js';
import { runsUrl, type ReportsFilter } from './run-urls.js';
import { dollars } from './runs-page.js';

const DAY_MS = 86_400_000;
/** Stop reasons charted on their own; the rest are summed as `other`. */
const CHARTED_REASONS = 6;
const OUTCOME_COLORS: Readonly<Record<string, string>> = {
  complete: '#1b5e20',
  complete_noop: '#81c784',
  blocked: '#b26a00',
  failed_with_evidence: '#a4161a',
};
const REASON_COLORS = ['#0b4f9c', '#6a3d9a', '#00838f', '#b26a00', '#ad1457', '#558b2f'];
const OTHER_COLOR = '#9e9e9e';

const day = (at: number): string => new Date(at).toISOString().slice(0, 10);
const percent = (rate: number | null): string => (rate === null ? '—' : `${(100 * rate).toFixed(1)}%`);

/** The runs page of the runs one row counts: the page's filters and the row's days. */
function periodRuns(filter: ReportsFilter, trends: RunTrends, row: TrendRow): string {
  const last = row.start + (trends.period === 'day' ? 0 : 6 * DAY_MS);
  return runsUrl({ ...filter, from: day(row.start), to: day(last) });
}

function trendSections(filter: ReportsFilter, trends: RunTrends): Html {
  const label = (row: TrendRow): string => (trends.period === 'day' ? day(row.start) : `week of ${day(row.start)}`);
  const known = new Set<string>(OUTCOMES);
  const outcomeSeries: BarSeries[] = [...OUTCOMES.map((name) => ({ name, color: OUTCOME_COLORS[name] ?? OTHER_COLOR }))];
  const otherOutcome = (row: TrendRow): number => [...row.outcomes].reduce((sum, [name, runs]) => (known.has(name) ? sum : sum + runs), 0);
  const hasOtherOutcome = trends.rows.some((row) => otherOutcome(row) > 0);
  if (hasOtherOutcome) outcomeSeries.push({ name: 'other', color: OTHER_COLOR });
  const outcomeValues = (row: TrendRow): number[] => [
    ...OUTCOMES.map((name) => row.outcomes.get(name) ?? 0),
    ...(hasOtherOutcome ? [otherOutcome(row)] : []),
  ];
  const charted = trends.stopReasons.slice(0, CHARTED_REASONS);
  const reasonSeries: BarSeries[] = charted.map((name, index) => ({ name, color: REASON_COLORS[index] ?? OTHER_COLOR }));
  const rest = trends.stopReasons.length > charted.length;
  if (rest) reasonSeries.push({ name: 'other', color: OTHER_COLOR });
  const reasonValues = (row: TrendRow): number[] => {
    const values = charted.map((name) => row.stopReasons.get(name) ?? 0);
    return rest ? [...values, row.runs - values.reduce((sum, value) => sum + value, 0)] : values;
  };
  const per = trends.period === 'day' ? 'day' : 'week';
  const bars = (values: (row: TrendRow) => number[]) => trends.rows.map((row) => ({ label: label(row), values: values(row) }));
  const total = trends.rows.reduce((sum, row) => sum + row.runs, 0);
  return html`<section aria-labelledby="outcomes-title">
      <h2 id="outcomes-title">Outcomes per ${per}</h2>
      ${barChart({
        id: 'outcomes-chart',
        label: `Outcomes of ${total} sealed run(s) per ${per}, stacked: ${outcomeSeries.map(({ name }) => name).join(', ')}; the numbers are in the table below`,
        series: outcomeSeries,
        bars: bars(outcomeValues),
      })}
      ${navTable({
        id: 'outcomes',
        caption: html`Sealed runs per ${per} by outcome, with their spend · <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>Enter</kbd> opens the
          ${per}'s runs`,
        columns: [trends.period === 'day' ? 'Day' : 'Week of', 'Runs', ...outcomeSeries.map(({ name }) => name), 'Spend'],
        rows: trends.rows.map((row) => {
          const href = periodRuns(filter, trends, row);
          return html`<tr data-nav-row data-href="${href}">
            <th scope="row"><a href="${href}">${day(row.start)}</a></th>
            <td class="num">${row.runs}</td>
            ${outcomeValues(row).map((value) => html`<td class="num">${value}</td>`)}
            <td class="num">${dollars(row.costUsd)}</td>
          </tr>`;
        }),
      })}
    </section>
    <section aria-labelledby="reasons-title">
      <h2 id="reasons-title">Stop reasons per ${per}</h2>
      ${barChart({
        id: 'reasons-chart',
        label: `Stop reasons of ${total} sealed run(s) per ${per}, stacked: ${reasonSeries.map(({ name }) => name).join(', ')}; the numbers are in the table below`,
        series: reasonSeries,
        bars: bars(reasonValues),
      })}
      <table id="reasons">
        <caption class="keys">
          Sealed runs per ${per} by stop reason${rest ? `, the ${CHARTED_REASONS} most frequent and the rest as other` : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col">${trends.period === 'day' ? 'Day' : 'Week of'}</th>
            ${reasonSeries.map(({ name }) => html`<th scope="col"><code>${name}</code></th>`)}
          </tr>
        </thead>
        <tbody>
          ${trends.rows.map(
            (row) =>
              html`<tr>
                <th scope="row">${day(row.start)}</th>
                ${reasonValues(row).map((value) => html`<td class="num">${value}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <section aria-labelledby="spend-title">
      <h2 id="spend-title">Spend per ${per}</h2>
      ${barChart({
        id: 'spend-chart',
        label: `Spend per ${per}, ${dollars(trends.rows.reduce((sum, row) => sum + row.costUsd, 0))} in all; the numbers are in the outcomes table`,
        series: [{ name: 'spend as the seals counted it', color: '#0b4f9c' }],
        bars: bars((row) => [row.costUsd]),
        format: dollars,
      })}
    </section>`;
}

function reachTable(id: string, title: string, rows: readonly ReachRow[]): Html {
  return navTable({
    id,
    caption: `Observed reach (sealed complete or complete_noop) against true reach (the shadow checks passed on the candidate the loop stopped on, of the runs they judged), per ${title}`,
    columns: [
      title === 'stop reason' ? 'Stop reason' : 'Policy',
      'Runs',
      'Observed reach',
      'True reach',
      'False stops',
      'Missed',
      'Shadow errors',
    ],
    rows: rows.map(
      (row) =>
        html`<tr data-nav-row>
          <th scope="row"><code>${row.key}</code></th>
          <td class="num">${row.runs}</td>
          <td class="num">${row.observedReached}/${row.runs} (${percent(row.observedReach)})</td>
          <td class="num">${row.trueReached}/${row.judged} (${percent(row.trueReach)})</td>
          <td class="num">${row.falseReached}</td>
          <td class="num">${row.missedReached}</td>
          <td class="num">${row.shadowErrors}</td>
        </tr>`,
    ),
  });
}

function stopQualitySection(report: StopQualityReport): Html {
  const { all, noise } = report;
  return html`<section aria-labelledby="stop-quality-title">
    <h2 id="stop-quality-title">Stop quality</h2>
    <p id="reach-summary">
      Observed reach ${all.observedReached}/${all.runs} (${percent(all.observedReach)}) · true reach ${all.trueReached}/${all.judged}
      (${percent(all.trueReach)}) · ${all.falseReached} false stop(s), ${all.missedReached} missed, ${all.shadowErrors} shadow error(s)
    </p>
    <p id="judge-noise">
      ${
        noise.sigma === undefined
          ? 'Judge noise: no candidate was scored more than once, so σ cannot be estimated.'
          : `Judge noise: σ ≈ ${noise.sigma.toFixed(4)} from ${noise.scores} scores of ${noise.candidates} candidate(s) scored more than once (${noise.degreesOfFreedom} degrees of freedom); a noiseAware guard takes noise: ${noise.noise}.`
      }
    </p>
    <h3>Per stop reason</h3>
    ${reachChart({ id: 'reach-by-reason-chart', label: 'Observed and true reach per stop reason; the numbers are in the table below', rows: report.byStopReason })}
    ${reachTable('reach-by-reason', 'stop reason', report.byStopReason)}
    <h3>Per policy</h3>
    ${reachChart({ id: 'reach-by-policy-chart', label: 'Observed and true reach per policy; the numbers are in the table below', rows: report.byPolicy })}
    ${reachTable('reach-by-policy', 'policy', report.byPolicy)}
  </section>`;
}

/**
 * The reports (docs/runs-app.md): outcomes, stop reasons and spend of the sealed runs over time, by day or
 * by week, as stacked bar charts and tables; and the stop-quality report (observed vs true reach per stop
 * reason and per policy, the judge's noise σ) as charts and tables. Filters by mission, task type and start
 * day; rows are walked with `j`/`k`, and a period's row opens its runs with Enter.
 */
export function reportsPage({
  filter,
  trends,
  stopQuality,
}: {
  filter: ReportsFilter;
  trends: RunTrends;
  stopQuality: StopQualityReport;
}): Html {
  return html`<h1>Reports</h1>
    ${runFilterForm({ action: '/reports', label: 'Filter the reports', filter, byOutcome: false })}
    <p class="keys"><a href="${runsUrl(filter)}" id="these-runs">These runs, one by one</a></p>
    ${
      stopQuality.all.runs === 0
        ? html`<p class="notice" id="empty">No sealed run matches.</p>`
        : html`${trendSections(filter, trends)}${stopQualitySection(stopQuality)}`
    }`;
}
