import type { ReviewEntry } from '../review/types.js';
import { fileChange } from './file-change.js';
import { languageOf } from './highlight.js';
import { html, type Html } from './html.js';
import { outputView } from './output-view.js';

/** The value of a final output as text: a string as it is, anything else as indented JSON. */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
}

/** Where the whole of one output of an item is served as plain text (see the app's `/items/:id/output` and `/diff`). */
export function outputHref(itemId: string, what: { file: string; side: 'after' | 'before' | 'diff' } | 'value'): string {
  const item = `/items/${encodeURIComponent(itemId)}`;
  if (what === 'value') return `${item}/output?value`;
  const file = `file=${encodeURIComponent(what.file)}`;
  return what.side === 'diff' ? `${item}/diff?${file}` : `${item}/output?${file}${what.side === 'before' ? '&before' : ''}`;
}

/** One changed file: its diff against the file before the run when the brief keeps that, else the file whole. */
function changedFile(itemId: string, file: string, content: string | null, change: ReturnType<typeof fileChange>): Html {
  const language = languageOf(file);
  if (change.kind === 'diff') {
    const badge =
      change.before === null ? html` <span class="badge">new</span>` : content === null ? html` <span class="badge">deleted</span>` : '';
    const link = (side: 'after' | 'before' | 'diff', text: string): Html =>
      html`<a href="${outputHref(itemId, { file, side })}">${text}</a>`;
    return html`<h3><code>${file}</code>${badge}</h3>
      <p class="keys file-links">
        Plain text:
        ${change.before === null ? '' : html`${link('before', 'before the run')} · `}${content === null ? '' : html`${link('after', 'the file now')} · `}${link('diff', 'the whole diff')}
      </p>
      ${outputView({ text: change.diff, language, wholeHref: outputHref(itemId, { file, side: 'diff' }), label: `diff of ${file}`, diff: true })}`;
  }
  const why = change.why === undefined ? '' : html`<p class="keys">Shown whole: ${change.why}.</p>`;
  if (content === null)
    return html`<h3><code>${file}</code> <span class="badge">deleted</span></h3>
      ${why}`;
  return html`<h3><code>${file}</code></h3>
    ${why} ${outputView({ text: content, language, wholeHref: outputHref(itemId, { file, side: 'after' }), label: `file ${file}` })}`;
}

/**
 * The final output of a brief: each changed file (by path) as a diff against the file before the run, or
 * whole where the brief keeps no such file, then the value.
 */
export function finalOutput({ item }: ReviewEntry): Html {
  const files = Object.entries(item.finalOutput.files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const parts = files.map(([file, content]) => changedFile(item.id, file, content, fileChange(item, file)));
  const value = item.finalOutput.value;
  if (value !== undefined)
    parts.push(
      html`<h3>Value</h3>
        ${outputView({
          text: valueText(value),
          language: typeof value === 'string' ? 'txt' : 'json',
          wholeHref: outputHref(item.id, 'value'),
          label: 'value',
        })}`,
    );
  return parts.length === 0 ? html`<p>No files changed, no value.</p>` : html`${parts}`;
}
