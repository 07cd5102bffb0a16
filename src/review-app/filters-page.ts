import type { FilterProposal } from '../review/filter-proposal.js';
import { describeMatch, type FilterMatch, type FilterRuleEntry } from '../review/filter-rules.js';
import type { FilterSuggestion } from '../review/labels.js';
import { html, type Html } from './html.js';
import { csrfField } from './layout.js';
import type { Session } from './sessions.js';

/** The rule form's fields, as the reviewer typed them (or as a proposal fills them in). */
export interface RuleFields {
  readonly label: string;
  readonly taskType: string;
  readonly stopReason: string;
  readonly reasonCodes: string;
  readonly pattern: string;
  readonly action: 'return' | 'reject';
  readonly comment: string;
}

/** The fields a proposal fills in: what the labelled items share. */
export function proposalFields(proposal: FilterProposal): RuleFields {
  const { match } = proposal;
  return {
    label: proposal.label,
    taskType: match.taskType ?? '',
    stopReason: match.stopReason ?? '',
    reasonCodes: (match.reasonCodes ?? []).join(' '),
    pattern: match.pattern ?? '',
    action: 'return',
    comment: '',
  };
}

/** The match the form's fields describe (empty ones left out; codes split on spaces and commas). */
export function fieldsMatch(fields: RuleFields): FilterMatch {
  const codes = fields.reasonCodes.split(/[\s,]+/).filter((code) => code !== '');
  return {
    ...(fields.taskType.trim() === '' ? {} : { taskType: fields.taskType.trim() }),
    ...(fields.stopReason.trim() === '' ? {} : { stopReason: fields.stopReason.trim() }),
    ...(codes.length === 0 ? {} : { reasonCodes: codes }),
    ...(fields.pattern.trim() === '' ? {} : { pattern: fields.pattern }),
  };
}

function text(name: keyof RuleFields, label: string, value: string, hint: string): Html {
  return html`<p>
    <label for="rule-${name}">${label}</label>
    <input id="rule-${name}" name="${name}" type="text" value="${value}" maxlength="200" aria-describedby="rule-${name}-hint" />
    <small id="rule-${name}-hint">${hint}</small>
  </p>`;
}

/**
 * The form that turns a suggestion into a rule: filled in with what the labelled items share, every
 * criterion editable. A rule needs at least one criterion; the server says so otherwise.
 */
export function ruleForm({
  fields,
  labels,
  proposal,
  session,
  message,
}: {
  fields: RuleFields;
  labels: readonly string[];
  proposal?: FilterProposal;
  session: Session;
  message?: Html;
}): Html {
  const share =
    proposal === undefined
      ? ''
      : html`<p class="notice" id="proposal">
          ${proposal.matching} of the last ${proposal.labelled} item(s) people labelled <code>${proposal.label}</code> match the criteria
          below.
        </p>`;
  return html`<h1>New filter rule</h1>
    ${message} ${share}
    <p>New items that match every criterion given get the label and leave the queue without a person.</p>
    <form method="post" action="/filters" id="rule-form">
      ${csrfField(session)}
      <p>
        <label for="rule-label">Label</label>
        <select id="rule-label" name="label">
          ${labels.map((label) => html`<option value="${label}" ${label === fields.label ? html` selected` : ''}>${label}</option>`)}
        </select>
      </p>
      ${text('taskType', 'Task type', fields.taskType, "the run's mission task type")}
      ${text('stopReason', 'Stop reason', fields.stopReason, 'the code the run was cut off for, e.g. budget_attempts')}
      ${text('reasonCodes', 'Reason codes', fields.reasonCodes, 'failing reason codes, all required (space-separated)')}
      ${text('pattern', 'Text', fields.pattern, 'found in the task, cutoff reason, last error or a failing message (not a regular expression)')}
      <fieldset>
        <legend>What the rule does</legend>
        <label
          ><input type="radio" name="action" value="return" ${fields.action === 'return' ? html` checked` : ''} /> Return to the loop as
          feedback</label
        >
        <label><input type="radio" name="action" value="reject" ${fields.action === 'reject' ? html` checked` : ''} /> Reject</label>
      </fieldset>
      <p>
        <label for="rule-comment">Feedback</label>
        <textarea id="rule-comment" name="comment" rows="2" maxlength="2000">${fields.comment}</textarea>
      </p>
      <button type="submit" id="add-rule">Add rule</button>
    </form>`;
}

/** The rules, each with what it matches, what it does, how many items it caught, and a button to disable or enable it. */
export function filtersPage({
  rules,
  suggestions,
  session,
  message,
}: {
  rules: readonly FilterRuleEntry[];
  suggestions: readonly FilterSuggestion[];
  session: Session;
  message?: Html;
}): Html {
  const rows = rules.map(
    (rule) =>
      html`<tr id="rule-${rule.id}" class="${rule.enabled ? 'enabled' : 'disabled'}">
        <td><code>${rule.id}</code></td>
        <td>${rule.enabled ? 'enabled' : 'disabled'}</td>
        <td>${rule.label}</td>
        <td>${rule.action === 'return' ? 'return to loop' : 'reject'}</td>
        <td>${describeMatch(rule.match)}</td>
        <td class="caught">${rule.caught}</td>
        <td>${rule.createdBy}</td>
        <td>
          <form class="inline" method="post" action="/filters/${rule.id}">
            ${csrfField(session)}<input type="hidden" name="enabled" value="${rule.enabled ? 'false' : 'true'}" />
            <button type="submit">${rule.enabled ? 'Disable' : 'Enable'} ${rule.id}</button>
          </form>
        </td>
      </tr>`,
  );
  return html`<h1>Filter rules</h1>
    ${message}
    ${
      rules.length === 0
        ? html`<p>No filter rules yet.</p>`
        : html`<table id="rules">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">State</th>
                <th scope="col">Label</th>
                <th scope="col">Does</th>
                <th scope="col">Matches</th>
                <th scope="col">Caught</th>
                <th scope="col">By</th>
                <th scope="col"><span class="skip-label">Change</span></th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`
    }
    <p>
      ${suggestions.map((s) => html`<a class="button" href="/filters/new?label=${encodeURIComponent(s.label)}">Rule for ${s.label}</a> `)}
      <a href="/filters/new">New rule</a> · <a href="/">Back to the queue</a>
    </p>`;
}
