import { accountStatus, proposerNoun, tailSize, type OutputTail } from '../core/proposer-account.js';
import { proposerAccountSchema } from '../proposers/account-schema.js';
import { html, spelledOut, type Html } from './html.js';

function stream(label: string, tail: OutputTail | undefined): Html {
  if (tail === undefined || tail.text === '') return html``;
  return html`<details open>
    <summary>${label}: the last ${tailSize(tail)}</summary>
    <pre class="text" data-stream="${label}">${spelledOut(tail.text)}</pre>
  </details>`;
}

/**
 * An attempt's proposer account on the evidence page: how its program ended, how long it ran, and the tails
 * of its stderr, transcript and stdout. The record is read as stored: an account that does not have the
 * account's shape is not shown. Its text is the program's own: spelled out ({@link spelledOut}) and
 * escaped by `html`.
 */
export function accountView(value: unknown): Html {
  const parsed = proposerAccountSchema.safeParse(value);
  if (!parsed.success) return html``;
  const account = parsed.data;
  return html`<div class="account" aria-label="Proposer account">
    <p>${proposerNoun(account.kind)}: ${accountStatus(account)}</p>
    ${stream('stderr', account.stderr)} ${stream('transcript', account.transcript)} ${stream('stdout', account.stdout)}
  </div>`;
}
