import type { Finding } from '../core/finding.js';
import type { RunRow } from '../ledger/ledger.js';
import { recordsOf, type RunRecord } from '../ledger/run-records.js';
import type { SignatureCheck } from '../ledger/seal-signature.js';
import type { RunVerification } from '../ledger/verify.js';
import { accountView } from './account-view.js';
import { age } from './age.js';
import { changeOf, type BaselineFile } from './file-change.js';
import { findingChanges, type CheckChange } from './finding-changes.js';
import { html, spelledOut, type Html } from './html.js';
import { outputView } from './output-view.js';
import { dollars } from './runs-page.js';
import { scoreChart } from './score-chart.js';

// Every field of a record is the run's or the agent's: it reaches the page only through `html` (escaped,
// hidden characters spelled out) or `spelledOut` for whole texts.

/** Characters of one finding message shown; the ledger keeps it whole. */
const MESSAGE_CHARS = 2_000;
/** Test cases of one inventory listed; the counts cover them all. */
const INVENTORY_CASES = 200;
const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

const CHANGE_NAMES: Readonly<Record<CheckChange, string>> = {
  new: 'new',
  fixed: 'fixed',
  still_failing: 'still failing',
  passing: 'passing',
};

/** What the run page links to besides the run: runs linked to it and its review item. */
export interface RunLinks {
  /** Runs that resolve this one. */
  readonly resolvedBy: readonly RunRow[];
  /** The id of the run's item in the review queue, while it is there. */
  readonly reviewItem?: string;
}

const runHref = (runId: string): string => `/runs/${encodeURIComponent(runId)}`;

function findingsView(previous: readonly Finding[], current: readonly Finding[]): Html {
  const groups = findingChanges(previous, current);
  if (groups.length === 0) return html`<p class="keys">No findings.</p>`;
  return html`<table class="findings">
    <thead>
      <tr>
        <th scope="col">Check</th>
        <th scope="col">Since the previous attempt</th>
        <th scope="col">Findings</th>
      </tr>
    </thead>
    <tbody>
      ${groups.map(
        ({ check, change, findings }) =>
          html`<tr data-change="${change}">
            <td><code>${check}</code></td>
            <td><span class="change-${change}">${CHANGE_NAMES[change]}</span></td>
            <td>
              ${findings.map(
                (finding) =>
                  html`<div>
                    <span class="status-${finding.status}">${finding.status}</span>
                    ${finding.reasonCodes.length === 0 ? '' : html`<code>${finding.reasonCodes.join(', ')}</code>`}
                    ${finding.location?.file === undefined ? '' : html` in <code>${finding.location.file}</code>`}
                    ${finding.message === '' ? '' : html`<pre class="text">${spelledOut(cut(finding.message, MESSAGE_CHARS))}</pre>`}
                  </div>`,
              )}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function diffsView(
  runId: string,
  attempt: number,
  files: Readonly<Record<string, string | null>>,
  baseline: Readonly<Record<string, BaselineFile>> | undefined,
): Html {
  const names = Object.keys(files).sort();
  if (names.length === 0) return html``;
  return html`<details class="diffs">
    <summary>${names.length} file(s) changed</summary>
    ${names.map((file) => {
      const after = files[file] ?? null;
      const kept = baseline !== undefined && Object.hasOwn(baseline, file);
      const change = kept ? changeOf(file, baseline[file] as BaselineFile, after) : undefined;
      const whole = `/runs/${encodeURIComponent(runId)}/diff?attempt=${attempt}&file=${encodeURIComponent(file)}`;
      return html`<section class="file" aria-label="${file}">
        <h4><code>${file}</code></h4>
        ${
          change?.kind === 'diff'
            ? outputView({ text: change.diff, language: file, wholeHref: whole, label: `diff of ${file}`, diff: true })
            : html`<p class="keys">
                ${
                  change === undefined
                    ? 'The records do not hold this file before the run: '
                    : `Shown whole${change.why === undefined ? '' : `: ${change.why}`}. `
                }${after === null ? 'the attempt deletes it.' : `${after.length.toLocaleString('en-US')} characters after the attempt.`}
              </p>`
        }
      </section>`;
    })}
  </details>`;
}

function inventoryView(
  inventories: Readonly<Record<string, { readonly cases: readonly { id: string; status: string }[] }>> | undefined,
): Html {
  const checks = Object.entries(inventories ?? {});
  if (checks.length === 0) return html``;
  return html`<section id="inventory" aria-label="Test inventory">
    <h2>Test inventory on the baseline</h2>
    ${checks.map(([check, { cases }]) => {
      const counts = new Map<string, number>();
      for (const { status } of cases) counts.set(status, (counts.get(status) ?? 0) + 1);
      return html`<details>
        <summary>
          <code>${check}</code>: ${cases.length} case(s) · ${[...counts].map(([status, count]) => `${count} ${status}`).join(', ')}
        </summary>
        <ul class="cases">
          ${cases.slice(0, INVENTORY_CASES).map(({ id, status }) => html`<li><span class="status-${status}">${status}</span> ${id}</li>`)}
        </ul>
        ${cases.length > INVENTORY_CASES ? html`<p class="keys">and ${cases.length - INVENTORY_CASES} more</p>` : ''}
      </details>`;
    })}
  </section>`;
}

function decisionView(record: Extract<RunRecord, { type: 'decision' }>): Html {
  const { verdict, decision, rejection, overridden } = record.data;
  return html`<div class="decision">
    <h4>Decision after ${record.data.attempt === 0 ? 'the baseline' : `attempt ${record.data.attempt}`}</h4>
    ${
      verdict === undefined
        ? html`<p>Guards: no stop verdict.</p>`
        : html`<p class="verdict">
            Guard <code>${verdict.guard}</code>: ${verdict.reason} → <strong>${verdict.outcome}</strong>. ${verdict.detail}
          </p>`
    }
    <p>
      ${decision === undefined ? 'No judge decision' : html`Judge: <strong>${decision.transition}</strong> ${decision.reason}`}${
        rejection === undefined ? '' : html` · <span class="error">refused decision ${rejection.code}: ${rejection.message}</span>`
      }${overridden === true ? ' · overridden by the stop verdict' : ''}
    </p>
  </div>`;
}

const signatureWords: Readonly<Record<SignatureCheck['status'], string>> = {
  valid: 'signed, and the signature verifies',
  invalid: 'signed, but the signature does not verify',
  unknown_key: 'signed by a key this server was not given',
  unsigned: 'not signed',
  unsealed: 'not sealed yet',
};

/**
 * One run (docs/runs-app.md): its summary and links, scores, baseline test inventory, the attempt timeline
 * (each attempt's diffs against the files before the run where the seal's brief keeps them, its findings
 * grouped by check as new, fixed or still failing, the proposer's transcript), the guards' verdicts and the
 * judge's decisions, and the seal with its signature status. A running run's page updates itself: the
 * `#live` element names the event stream the page script listens to.
 */
export function runPage({
  run,
  records,
  verification,
  signature,
  links,
  at,
}: {
  run: RunRow;
  records: readonly RunRecord[];
  verification: RunVerification;
  signature: SignatureCheck;
  links: RunLinks;
  at: number;
}): Html {
  const started = recordsOf(records, 'run.started')[0];
  const baseline = recordsOf(records, 'baseline')[0];
  const seal = recordsOf(records, 'run.sealed')[0];
  const attempts = recordsOf(records, 'attempt');
  const kept = seal?.data.brief?.finalOutput.baseline;
  const counters = seal?.data.counters ?? attempts.at(-1)?.data.counters;
  const ended = seal?.at ?? records.at(-1)?.at ?? run.startedAt;
  const resolves = started?.data.resolves;
  const scores = attempts.flatMap(({ data }) => {
    const score = data.summary?.score ?? data.findings?.find((finding) => finding.score !== undefined)?.score;
    return score === undefined ? [] : [{ attempt: data.attempt, score }];
  });
  let previous: readonly Finding[] = baseline?.data.findings ?? [];
  const timeline = records.flatMap((record): Html[] => {
    if (record.type === 'baseline') {
      const failing = record.data.findings.filter((finding) => finding.status === 'fail' || finding.status === 'error');
      return [
        html`<li class="step" id="baseline" data-nav-row tabindex="-1">
          <h3>Baseline <span class="keys">${new Date(record.at).toISOString()}</span></h3>
          <p>${failing.length} failing finding(s) before any attempt.</p>
          ${findingsView([], record.data.findings)}
        </li>`,
      ];
    }
    if (record.type === 'attempt') {
      const { data } = record;
      const findings = data.findings ?? [];
      const view = html`<li class="step" id="attempt-${data.attempt}" data-nav-row tabindex="-1">
        <h3>Attempt ${data.attempt} <span class="keys">${new Date(record.at).toISOString()}</span></h3>
        <p>
          ${data.candidate === undefined ? 'No candidate' : html`Candidate <code>${data.candidate.hash.slice(0, 16)}</code>`}${
            data.usage === undefined
              ? ''
              : html` · ${data.usage.inputTokens ?? 0} in / ${data.usage.outputTokens ?? 0} out tokens · ${dollars(data.usage.costUsd)}`
          }${data.summary?.score === undefined ? '' : html` · score ${data.summary.score.toFixed(3)}`}
        </p>
        ${data.candidate === undefined ? '' : diffsView(run.runId, data.attempt, data.candidate.files, kept)}
        ${findingsView(previous, findings)} ${accountView(data.account)}
      </li>`;
      previous = findings;
      return [view];
    }
    if (record.type === 'decision') return [html`<li class="step decision-step">${decisionView(record)}</li>`];
    return [];
  });
  const chain = verification.ok
    ? html`<span id="chain">hash chain verifies (${verification.records} records)</span>`
    : html`<span id="chain" class="error" role="alert"
        >hash chain broken at record ${verification.firstBad?.seq ?? '?'}: ${verification.firstBad?.detail ?? ''}</span
      >`;
  return html`<p><a href="/runs" data-key="q">← Runs</a> <kbd>q</kbd> · <a href="${runHref(run.runId)}/evidence">Evidence</a></p>
    <h1>Run <code>${run.runId}</code></h1>
    ${
      run.sealed
        ? ''
        : html`<p id="live" class="notice" role="status" data-events="${runHref(run.runId)}/events?count=${run.recordCount}">
            Running: this page updates as the run appends records.
          </p>`
    }
    <dl class="run-summary">
      <div>
        <dt>Mission</dt>
        <dd><a href="/runs?missionId=${encodeURIComponent(run.missionId)}">${run.missionId}</a></dd>
      </div>
      <div>
        <dt>Task type</dt>
        <dd>${run.taskType}</dd>
      </div>
      <div>
        <dt>Started</dt>
        <dd><time datetime="${new Date(run.startedAt).toISOString()}">${new Date(run.startedAt).toISOString()}</time></dd>
      </div>
      <div>
        <dt>Outcome</dt>
        <dd id="outcome">${run.sealed ? (run.outcome ?? '–') : 'running'}</dd>
      </div>
      <div>
        <dt>Verification</dt>
        <dd>${run.verification ?? '–'}</dd>
      </div>
      <div>
        <dt>Stop reason</dt>
        <dd><code>${run.stopReason ?? '–'}</code></dd>
      </div>
      <div>
        <dt>Attempts</dt>
        <dd id="attempts">${seal?.data.attempts ?? attempts.length}</dd>
      </div>
      <div>
        <dt>Duration</dt>
        <dd>${age(counters?.elapsedMs ?? ended - run.startedAt)}</dd>
      </div>
      <div>
        <dt>Spend</dt>
        <dd>${dollars(counters?.costUsd)}</dd>
      </div>
      <div>
        <dt>Records</dt>
        <dd>${chain}</dd>
      </div>
    </dl>
    <section id="links" aria-label="Linked runs and review">
      ${resolves === undefined ? '' : html`<p>Resolves run <a href="${runHref(resolves.runId)}">${resolves.runId}</a>${resolves.note === undefined ? '' : html`: ${resolves.note}`}</p>`}
      ${
        links.resolvedBy.length === 0
          ? ''
          : html`<p>
              Resolved by
              ${links.resolvedBy.map((linked, index) => html`${index === 0 ? '' : ', '}<a href="${runHref(linked.runId)}">${linked.runId}</a>`)}
            </p>`
      }
      ${links.reviewItem === undefined ? '' : html`<p>In the review queue: <a id="review-item" href="/items/${encodeURIComponent(links.reviewItem)}">item ${links.reviewItem}</a></p>`}
    </section>
    ${scoreChart(scores)} ${inventoryView(baseline?.data.inventories)}
    <h2>Timeline</h2>
    <p class="keys"><kbd>j</kbd>/<kbd>k</kbd> move between steps</p>
    <ol class="timeline" data-nav>
      ${timeline}
    </ol>
    ${
      seal === undefined
        ? ''
        : html`<section id="seal" aria-label="Seal">
            <h2>Seal <span class="keys">${new Date(seal.at).toISOString()}</span></h2>
            <p>
              Outcome <strong>${seal.data.outcome}</strong> · verification <strong>${seal.data.verification}</strong> · stop reason
              <code>${seal.data.stopReason}</code>${seal.data.guard === undefined ? '' : html` · guard <code>${seal.data.guard}</code>`}
            </p>
            ${seal.data.detail === undefined ? '' : html`<pre class="text">${spelledOut(cut(seal.data.detail, MESSAGE_CHARS))}</pre>`}
            <p id="signature" class="signature-${signature.status}">
              Signature:
              ${signatureWords[signature.status]}${signature.keyId === undefined ? '' : html` (key <code>${signature.keyId}</code>)`}
            </p>
          </section>`
    }
    <p class="keys">As of ${new Date(at).toISOString()}</p>`;
}
