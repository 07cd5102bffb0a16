import type { RunRow } from '../ledger/ledger.js';
import { age } from './age.js';
import { html, type Html } from './html.js';
import { navTable } from './nav-table.js';
import { runFilterForm } from './run-filter-form.js';
import { short } from './short-text.js';
import { reportsUrl, runsUrl, type RunsFilter } from './run-urls.js';

/** What the runs page shows of a run besides its row: read from its newest record (the seal once sealed). */
export interface RunFigures {
  readonly attempts?: number;
  readonly durationMs?: number;
  readonly costUsd?: number;
}

/** Runs per page of the runs page. */
export const RUNS_PAGE_SIZE = 50;

/** The keyset of the run a page ends with, as the `before` parameter carries it: `startedAt.runId`. */
export const pageKeyText = (run: Pick<RunRow, 'startedAt' | 'runId'>): string => `${run.startedAt}.${run.runId}`;

/** A `before` parameter read back; undefined for one that is not `digits.id`. */
export function pageKeyOf(text: string | undefined): { startedAt: number; runId: string } | undefined {
  const match = text === undefined ? null : /^(\d{1,16})\.(.+)$/s.exec(text);
  return match === null ? undefined : { startedAt: Number(match[1]), runId: match[2] as string };
}

/** Spend as dollars with cents, or to four places below one cent. */
export const dollars = (usd: number | undefined): string =>
  usd === undefined ? '–' : usd !== 0 && Math.abs(usd) < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;

function outcomeCell(run: RunRow): Html {
  if (!run.sealed) return html`<span class="badge running">running</span>`;
  return html`<span class="outcome-${run.outcome ?? ''}">${run.outcome ?? '–'}</span>`;
}

/**
 * The runs, newest first: outcome, verification, stop reason, mission, attempts, duration, spend and when
 * each started; filters by mission, outcome, task type and start day; one keyset page of
 * {@link RUNS_PAGE_SIZE} runs. Rows are walked with `j`/`k` and opened with Enter.
 */
export function runsPage({
  runs,
  figures,
  filter,
  hasMore,
  paged,
  at,
}: {
  runs: readonly RunRow[];
  figures: ReadonlyMap<string, RunFigures>;
  filter: RunsFilter;
  hasMore: boolean;
  /** Whether this page is past the first. */
  paged: boolean;
  at: number;
}): Html {
  const rows = runs.map((run) => {
    const figure = figures.get(run.runId) ?? {};
    const href = `/runs/${encodeURIComponent(run.runId)}`;
    return html`<tr data-nav-row data-href="${href}">
      <td>${outcomeCell(run)}</td>
      <td>${run.verification === undefined ? '–' : html`<span class="badge ${run.verification}">${run.verification}</span>`}</td>
      <td><code>${run.stopReason ?? '–'}</code></td>
      <td><a href="${href}">${short(run.missionId, 60)}</a><br /><span class="keys">${run.taskType} · ${short(run.runId, 40)}</span></td>
      <td class="num">${figure.attempts ?? '–'}</td>
      <td class="num">${figure.durationMs === undefined ? '–' : age(figure.durationMs)}</td>
      <td class="num">${dollars(figure.costUsd)}</td>
      <td><time datetime="${new Date(run.startedAt).toISOString()}">${age(at - run.startedAt)} ago</time></td>
    </tr>`;
  });
  const last = runs.at(-1);
  return html`<h1>Runs</h1>
    <p class="keys">
      <a href="${reportsUrl(filter)}" id="reports-of-runs">Reports of these runs</a>: outcomes, stop reasons and spend over time, stop
      quality
    </p>
    ${runFilterForm({ action: '/runs', label: 'Filter the runs', filter, byOutcome: true })}
    ${
      runs.length === 0
        ? html`<p class="notice" id="empty">${paged ? 'No older runs match.' : 'No run matches.'}</p>`
        : navTable({
            id: 'runs',
            caption: html`${runs.length} run(s), newest first · <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>Enter</kbd> opens`,
            columns: ['Outcome', 'Verification', 'Stop reason', 'Mission', 'Attempts', 'Duration', 'Spend', 'Started'],
            rows,
          })
    }
    <nav aria-label="Pages">
      ${paged ? html`<a href="${runsUrl(filter)}" id="newest">Newest runs</a> ` : ''}${
        hasMore && last !== undefined ? html`<a href="${runsUrl(filter, pageKeyText(last))}" id="older">Older runs</a>` : ''
      }
    </nav>`;
}
