import { OUTCOMES } from '../core/outcome.js';
import { html, type Html } from './html.js';
import type { RunsFilter } from './run-urls.js';
import { option } from './select-option.js';

/**
 * The filter form of the runs and reports pages: mission, outcome (when `byOutcome`: the reports break
 * runs down by it instead), task type and start days, sent with GET to `action`, filled with `filter`.
 */
export function runFilterForm({
  action,
  label,
  filter,
  byOutcome,
}: {
  action: string;
  /** The form's accessible name. */
  label: string;
  filter: RunsFilter;
  byOutcome: boolean;
}): Html {
  return html`<form class="filters" method="get" action="${action}" aria-label="${label}">
    <label for="filter-mission">Mission <input id="filter-mission" name="missionId" value="${filter.missionId ?? ''}" size="18" /></label>
    ${
      byOutcome
        ? html`<label for="filter-outcome"
            >Outcome
            <select id="filter-outcome" name="outcome">
              ${option('', 'any', filter.outcome)}${OUTCOMES.map((value) => option(value, value, filter.outcome))}
            </select></label
          >`
        : ''
    }
    <label for="filter-task-type"
      >Task type <input id="filter-task-type" name="taskType" value="${filter.taskType ?? ''}" size="12"
    /></label>
    <label for="filter-from">Started from <input id="filter-from" type="date" name="from" value="${filter.from ?? ''}" /></label>
    <label for="filter-to">to <input id="filter-to" type="date" name="to" value="${filter.to ?? ''}" /></label>
    <button type="submit">Filter</button>
  </form>`;
}
