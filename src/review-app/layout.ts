import type { ReviewStats } from '../review/reviewer-queue.js';
import { html, type Html } from './html.js';
import type { Session } from './sessions.js';

const percent = (rate: number): string => `${Math.round(rate * 100)}%`;

/** A hidden field with the session's CSRF token: every form that changes something carries one. */
export const csrfField = (session: Session): Html => html`<input type="hidden" name="csrf" value="${session.csrf}" />`;

/**
 * The status bar (docs/review-app.md): queue depth against capacity, mode, approve rate, the current attempt limit,
 * filter-rule suggestions and dropped items; who is signed in.
 */
export function statusBar(stats: ReviewStats, session: Session): Html {
  const suggestions = stats.suggestions;
  return html`<header class="status" role="banner">
    <dl aria-label="Queue status">
      <div>
        <dt>Depth</dt>
        <dd id="depth">${stats.depth} / ${stats.capacity}</dd>
      </div>
      <div>
        <dt>Claimed</dt>
        <dd>${stats.claimed}</dd>
      </div>
      <div>
        <dt>Mode</dt>
        <dd id="mode" class="${stats.mode}">${stats.mode}</dd>
      </div>
      <div>
        <dt>Approve rate</dt>
        <dd id="approve-rate">${stats.approveRate === undefined ? '–' : `${percent(stats.approveRate)} of last ${stats.window}`}</dd>
      </div>
      <div>
        <dt>Attempt limit</dt>
        <dd id="attempt-limit">${stats.attemptLimit}</dd>
      </div>
      <div>
        <dt>Dropped</dt>
        <dd id="dropped">${stats.dropped}</dd>
      </div>
    </dl>
    <section id="suggestions" aria-label="Filter-rule suggestions">
      ${
        suggestions.length === 0
          ? html`<span class="keys">No filter-rule suggestions</span>`
          : html`<strong>Filter-rule suggestions</strong>
              <ul>
                ${suggestions.map(
                  (suggestion) =>
                    html`<li data-label="${suggestion.label}">
                      ${suggestion.suggestion} ·
                      <a href="/filters/new?label=${encodeURIComponent(suggestion.label)}">Make it a rule</a>
                    </li>`,
                )}
              </ul>`
      }
    </section>
    <div class="who">
      <a href="/" id="queue-link">Queue</a> · <a href="/runs" id="runs-link">Runs</a> · <a href="/reports" id="reports-link">Reports</a> ·
      <a href="/filters" id="filters-link">Filter rules</a> · Signed in as <strong id="reviewer">${session.reviewer}</strong>
      <form class="inline" method="post" action="/sign-out">${csrfField(session)}<button type="submit">Sign out</button></form>
    </div>
  </header>`;
}

/** A whole page: the stylesheet and the shortcut script from this origin, the status bar when signed in. */
export function page({ title, body, status }: { title: string; body: Html; status?: Html }): string {
  return `<!doctype html>\n${html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${title} · redline review</title>
      <link rel="stylesheet" href="/assets/app.css" />
      <script src="/assets/keys.js" defer></script>
    </head>
    <body>
      <a class="skip" href="#main">Skip to content</a>
      ${status}
      <main id="main">${body}</main>
    </body>
  </html>`}`;
}
