import type { ReviewEntry } from '../review/types.js';
import { age } from './age.js';
import { finalOutput } from './final-output.js';
import { html, type Html } from './html.js';
import { csrfField } from './layout.js';
import type { Session } from './sessions.js';

const itemHref = (itemId: string): string => `/items/${encodeURIComponent(itemId)}`;

function failing(entry: ReviewEntry): Html {
  const list = entry.item.failing ?? [];
  if (list.length === 0) return html``;
  return html`<h2>Failing findings (${list.length + (entry.item.failingOmitted ?? 0)})</h2>
    <table>
      <thead>
        <tr>
          <th scope="col">Check</th>
          <th scope="col">Reason codes</th>
          <th scope="col">Where</th>
          <th scope="col">Message</th>
        </tr>
      </thead>
      <tbody>
        ${list.map(
          (finding) =>
            html`<tr>
              <td>${finding.check}</td>
              <td>${finding.reasonCodes.join(', ') || finding.status}</td>
              <td>
                ${
                  finding.location?.file === undefined
                    ? ''
                    : `${finding.location.file}${finding.location.line === undefined ? '' : `:${finding.location.line}`}`
                }
              </td>
              <td><pre class="text">${finding.message}</pre></td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${entry.item.failingOmitted === undefined ? '' : html`<p>… and ${entry.item.failingOmitted} more in the evidence.</p>`}`;
}

/** Where the item stands, for its reviewer: decided, held by someone, held by you, or free. */
function standing(entry: ReviewEntry, session: Session, at: number): Html {
  const { verdict, claim } = entry;
  if (verdict !== undefined)
    return html`<p class="notice" id="standing">
      Decided: <strong>${verdict.decision === 'approve' ? 'approved' : 'rejected'}</strong> (${verdict.label}) by ${verdict.reviewer},
      ${new Date(verdict.decidedAt).toISOString()}.
    </p>`;
  if (entry.status === 'dropped')
    return html`<p class="notice" id="standing">Dropped at capacity: it is in the circuit-breaker log and takes no verdict.</p>`;
  if (claim === undefined) return html`<p id="standing">Not claimed: <kbd>n</kbd> claims the next item for you.</p>`;
  const until = new Date(claim.leaseUntil).toISOString();
  return claim.reviewer === session.reviewer
    ? html`<p id="standing" class="claim">Claimed by you until ${until} (${age(claim.leaseUntil - at)} left).</p>
        <form class="inline" method="post" action="/release">
          ${csrfField(session)}<button type="submit" id="release">Release: return it to the queue</button>
        </form>`
    : html`<p id="standing" class="claim">
        Claimed by ${claim.reviewer} until ${until} (${age(claim.leaseUntil - at)} left): only they can decide it now.
      </p>`;
}

function verdictForm(entry: ReviewEntry, { labels, session, at }: { labels: readonly string[]; session: Session; at: number }): Html {
  const claim = entry.claim;
  const closed =
    entry.status === 'decided' ||
    entry.status === 'dropped' ||
    (claim !== undefined && claim.leaseUntil > at && claim.reviewer !== session.reviewer);
  const disabled = closed ? html` disabled` : '';
  return html`<form class="verdict-form" method="post" action="${itemHref(entry.item.id)}/verdict">
${csrfField(session)}
<fieldset${disabled}><legend>Verdict</legend>
<div class="row">
  <label for="label">Reason label <span class="keys"><kbd>1</kbd>–<kbd>${Math.min(9, labels.length)}</kbd></span>
    <select id="label" name="label" required>
      <option value="">choose a label</option>
      ${labels.map((label, index) => html`<option value="${label}">${index < 9 ? `${index + 1} · ` : ''}${label}</option>`)}
    </select></label>
  <label for="comment">Comment (optional) <span class="keys"><kbd>c</kbd></span>
    <textarea id="comment" name="comment" rows="1" cols="40"></textarea></label>
  <button class="approve" type="submit" name="decision" value="approve" data-key="a">Approve <kbd>a</kbd></button>
  <button class="reject" type="submit" name="decision" value="reject" data-key="r">Reject <kbd>r</kbd></button>
</div>
</fieldset>
</form>`;
}

/**
 * One brief (docs/review-app.md, 'Pages'): task → final output (highlighted; diffs as diffs; cut with a link to the whole)
 * → cutoff reason → last error → attempt count → a link to the full evidence, with the verdict form.
 */
export function briefPage({
  entry,
  labels,
  session,
  at,
  message,
}: {
  entry: ReviewEntry;
  labels: readonly string[];
  session: Session;
  at: number;
  message?: Html | undefined;
}): Html {
  const { item } = entry;
  return html`<p><a href="/" data-key="q">← Queue</a> <kbd>q</kbd></p>
    <h1>Brief <code>${item.id}</code></h1>
    ${message} ${standing(entry, session, at)}
    <p>
      Run <code>${item.runId}</code> · priority ${item.priority} ·
      <span class="badge ${item.verification}">${item.verification}</span
      >${item.tags.map((tag) => html` <span class="badge">${tag}</span>`)} · enqueued ${age(at - item.enqueuedAt)} ago
    </p>
    ${verdictForm(entry, { labels, session, at })}
    <form class="inline" method="post" action="/next">
      ${csrfField(session)}<button type="submit" data-key="n">Next item <kbd>n</kbd></button>
    </form>
    <p class="keys">
      Keys: <kbd>1</kbd>–<kbd>9</kbd> label · <kbd>a</kbd> approve · <kbd>r</kbd> reject · <kbd>c</kbd> comment · <kbd>n</kbd> next ·
      <kbd>e</kbd> evidence · <kbd>q</kbd> queue
    </p>
    <h2>Task</h2>
    <pre class="text" id="task">${item.task}</pre>
    <h2>Final output</h2>
    <div id="output">${finalOutput(entry)}</div>
    ${item.stripped === undefined ? '' : html`<p class="keys">Stripped from the output: ${item.stripped.map(({ pattern, count }) => `${count} × ${pattern}`).join(', ')}</p>`}
    <h2>Cutoff reason</h2>
    <pre class="text" id="cutoff">${item.cutoffReason}</pre>
    <h2>Last error</h2>
    <pre class="text" id="last-error">${item.lastError ?? '(none)'}</pre>
    ${failing(entry)}
    <h2>Attempts</h2>
    <p id="attempts">${item.attempts}</p>
    <p>
      <a href="/runs/${encodeURIComponent(item.runId)}/evidence" data-key="e">The run's full evidence</a> <kbd>e</kbd>: attempts, findings,
      guard verdicts, seal and chain status.
    </p>`;
}
