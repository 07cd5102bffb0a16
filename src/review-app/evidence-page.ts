import type { LedgerRecord, RunRow } from '../ledger/ledger.js';
import type { RunVerification } from '../ledger/verify.js';
import { accountView } from './account-view.js';
import { html, spelledOut, type Html } from './html.js';

// Records are read as the ledger stores them: every field is agent- or run-supplied, so each is read
// defensively and rendered through `html` (escaped).

type Data = Readonly<Record<string, unknown>>;

const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined ? '' : (JSON.stringify(value) ?? ''));
const asData = (value: unknown): Data => (typeof value === 'object' && value !== null ? (value as Data) : {});
const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);

/** Messages longer than this are cut on the evidence page (the ledger keeps them whole). */
const MESSAGE_CHARS = 2_000;
const cut = (message: string): string => (message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)}…` : message);

function findings(value: unknown): Html {
  const rows = list(value).map((raw) => {
    const finding = asData(raw);
    return html`<tr>
      <td>${text(finding.check)}</td>
      <td>${text(finding.stage)}</td>
      <td>${text(finding.tier)}</td>
      <td class="status-${text(finding.status)}">${text(finding.status)}</td>
      <td>${list(finding.reasonCodes).map(text).join(', ')}</td>
      <td><pre class="text">${spelledOut(cut(text(finding.message)))}</pre></td>
    </tr>`;
  });
  if (rows.length === 0) return html`<p>No findings.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Check</th>
        <th scope="col">Stage</th>
        <th scope="col">Tier</th>
        <th scope="col">Status</th>
        <th scope="col">Reason codes</th>
        <th scope="col">Message</th>
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

function guardVerdict(value: unknown): Html {
  if (value === undefined) return html``;
  const verdict = asData(value);
  return html`<p>
    Guard <code>${text(verdict.guard)}</code>: ${text(verdict.reason)} → ${text(verdict.outcome)}. ${text(verdict.detail)}
  </p>`;
}

function recordView(record: LedgerRecord): Html {
  const data = record.data;
  const at = new Date(record.at).toISOString();
  switch (record.type) {
    case 'attempt': {
      const candidate = asData(data.candidate);
      const files = Object.keys(asData(candidate.files));
      return html`<section aria-label="Attempt ${text(data.attempt)}">
        <h2>Attempt ${text(data.attempt)} <span class="keys">${at}</span></h2>
        <p>Candidate <code>${text(candidate.hash)}</code>${files.length === 0 ? '' : html`, files: ${files.join(', ')}`}</p>
        ${findings(data.findings)} ${accountView(data.account)}
      </section>`;
    }
    case 'decision': {
      const decision = asData(data.decision);
      const rejection = data.rejection === undefined ? undefined : asData(data.rejection);
      return html`<section>
        <h3>Decision after attempt ${text(data.attempt)}</h3>
        ${guardVerdict(data.verdict)}
        <p>
          ${data.decision === undefined ? 'No decision' : html`Judge: <strong>${text(decision.transition)}</strong> ${text(decision.reason)}`}${
            rejection === undefined
              ? ''
              : html` · <span class="error">rejected decision ${text(rejection.code)}: ${text(rejection.message)}</span>`
          }${data.overridden === true ? ' · overridden by the stop verdict' : ''}
        </p>
      </section>`;
    }
    case 'baseline':
      return html`<section>
        <h2>Baseline <span class="keys">${at}</span></h2>
        ${findings(data.findings)}
      </section>`;
    case 'run.sealed':
      return html`<section id="seal">
        <h2>Seal <span class="keys">${at}</span></h2>
        <p>
          Outcome <strong>${text(data.outcome)}</strong> · verification <strong>${text(data.verification)}</strong> · stop reason
          <code>${text(data.stopReason)}</code> after ${text(data.attempts)} attempt(s)
        </p>
        ${data.guard === undefined ? '' : html`<p>Guard <code>${text(data.guard)}</code></p>`}
        <pre class="text">${cut(text(data.detail))}</pre>
      </section>`;
    default:
      return html`<section>
        <h2>${record.type} <span class="keys">${at}</span></h2>
      </section>`;
  }
}

/**
 * The run's evidence: attempts with findings and the proposer's account, guard verdicts and judge decisions,
 * the seal, and the chain's status.
 */
export function evidencePage({
  runId,
  run,
  records,
  verification,
}: {
  runId: string;
  run: RunRow | undefined;
  records: readonly LedgerRecord[];
  verification: RunVerification | undefined;
}): Html {
  if (run === undefined)
    return html`<h1>Evidence of run <code>${runId}</code></h1>
      <p class="notice">The ledger holds no run ${runId}.</p>`;
  const chain =
    verification === undefined
      ? html``
      : verification.ok
        ? html`<p id="chain" class="notice">Hash chain verifies: ${verification.records} record(s).</p>`
        : html`<p id="chain" class="error" role="alert">
            Hash chain broken at record ${verification.firstBad?.seq ?? '?'}: ${verification.firstBad?.detail ?? ''}
          </p>`;
  return html`<p><a href="/" data-key="q">← Queue</a> <kbd>q</kbd></p>
    <h1>Evidence of run <code>${runId}</code></h1>
    <p>
      Mission <code>${run.missionId}</code> · task type ${run.taskType} · started ${new Date(run.startedAt).toISOString()} ·
      ${run.sealed ? html`sealed ${run.outcome ?? ''} / ${run.verification ?? ''} / ${run.stopReason ?? ''}` : 'not sealed'}
    </p>
    ${chain} ${records.map(recordView)}`;
}
