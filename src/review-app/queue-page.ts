import type { ReviewEntry } from '../review/types.js';
import { age } from './age.js';
import { html, type Html } from './html.js';
import { navTable } from './nav-table.js';
import { option } from './select-option.js';
import { short } from './short-text.js';
import { csrfField } from './layout.js';
import type { Session } from './sessions.js';

/** What the ledger says of an item's run: its mission and task type. */
export interface RunInfo {
  readonly missionId: string;
  readonly taskType: string;
}

/** The queue page's filters, as the query string gives them. */
export interface QueueFilter {
  readonly verification?: string;
  readonly taskType?: string;
  readonly page: number;
}

/** Items per page of the queue. */
export const PAGE_SIZE = 50;

function claimCell(entry: ReviewEntry, session: Session, at: number): Html {
  const claim = entry.claim;
  if (claim === undefined) return html`queued`;
  const who = claim.reviewer === session.reviewer ? 'you' : claim.reviewer;
  return html`<span class="claim">claimed by ${who} (${age(claim.leaseUntil - at)} left)</span>`;
}

/**
 * The queue in review order: priority, age, cutoff reason, verification label, mission, task and who
 * holds it; filters by verification label and task type; one page of {@link PAGE_SIZE} items.
 */
export function queuePage({
  entries,
  runs,
  taskTypes,
  filter,
  depth,
  hasMore,
  session,
  at,
}: {
  entries: readonly ReviewEntry[];
  runs: ReadonlyMap<string, RunInfo>;
  taskTypes: readonly string[];
  filter: QueueFilter;
  depth: number;
  hasMore: boolean;
  session: Session;
  at: number;
}): Html {
  const query = (page: number): string => {
    const params = new URLSearchParams();
    if (filter.verification !== undefined) params.set('verification', filter.verification);
    if (filter.taskType !== undefined) params.set('taskType', filter.taskType);
    if (page > 1) params.set('page', String(page));
    const text = params.toString();
    return text === '' ? '/' : `/?${text}`;
  };
  const rows = entries.map((entry) => {
    const { item } = entry;
    const run = runs.get(item.runId);
    return html`<tr data-nav-row data-href="/items/${encodeURIComponent(item.id)}">
      <td class="num">${item.priority}</td>
      <td>${age(at - item.enqueuedAt)}</td>
      <td>${short(item.cutoffReason, 60)}</td>
      <td>
        <span class="badge ${item.verification}">${item.verification}</span
        >${item.tags.map((tag) => html` <span class="badge">${tag}</span>`)}
      </td>
      <td>${run === undefined ? '–' : html`${run.missionId}<br /><span class="keys">${run.taskType}</span>`}</td>
      <td>
        <a href="/items/${encodeURIComponent(item.id)}">${short(item.task.slice(0, 200).split('\n')[0] ?? '', 80) || '(no task text)'}</a>
      </td>
      <td>${claimCell(entry, session, at)}</td>
    </tr>`;
  });
  return html`<h1>Review queue</h1>
    <form class="inline" method="post" action="/next">
      ${csrfField(session)}
      <p>
        <button type="submit" data-key="n">Review the next item <kbd>n</kbd></button>
      </p>
    </form>
    <form class="filters" method="get" action="/" aria-label="Filter the queue">
      <label for="filter-verification"
        >Verification
        <select id="filter-verification" name="verification">
          ${option('', 'any', filter.verification)}${['unverified', 'sampled', 'verified'].map((value) => option(value, value, filter.verification))}
        </select></label
      >
      <label for="filter-task-type"
        >Task type
        <select id="filter-task-type" name="taskType">
          ${option('', 'any', filter.taskType)}${taskTypes.map((value) => option(value, value, filter.taskType))}
        </select></label
      >
      <button type="submit">Filter</button>
    </form>
    ${
      entries.length === 0
        ? html`<p class="notice" id="empty">${depth === 0 ? 'The queue is empty.' : 'No item matches the filter.'}</p>`
        : navTable({
            id: 'queue',
            caption: `Page ${filter.page}: ${entries.length} item(s) shown of ${depth} in the queue, highest priority then oldest first`,
            columns: ['Priority', 'Age', 'Cutoff reason', 'Verification', 'Mission', 'Task', 'Status'],
            rows,
          })
    }
    <nav aria-label="Pages">
      ${filter.page > 1 ? html`<a href="${query(filter.page - 1)}">Previous page</a> ` : ''}${hasMore ? html`<a href="${query(filter.page + 1)}">Next page</a>` : ''}
    </nav>`;
}
