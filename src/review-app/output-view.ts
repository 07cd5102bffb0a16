import { hidesText } from '../core/untrusted-text.js';
import { diffClassifier, type DiffLineClass } from './diff-lines.js';
import { highlightLine } from './highlight.js';
import { html, type Html } from './html.js';

/** Lines of one output a brief shows; the rest is one link away. */
export const MAX_LINES = 400;
/** Characters of one output a brief shows, whatever its lines (a 1 MB single line is cut too). */
export const MAX_CHARS = 64_000;
/** Characters of one line shown; a longer line ends in `…`. */
const MAX_LINE_CHARS = 500;

/** Whether `text` is a unified diff (as `git diff` or `diff -u` print it): shown with its lines marked. */
export function isUnifiedDiff(text: string): boolean {
  return /^(diff --git |--- \S.*\n\+\+\+ \S)/m.test(text.slice(0, 4096));
}

/** A diff line's markup: an added, removed or context line is its sign, then its code highlighted. */
function diffLine(shown: string, kind: DiffLineClass, language: string): Html {
  if (kind === 'diff-meta' || kind === 'diff-hunk') return html`${shown}`;
  return html`${shown.slice(0, 1)}${highlightLine(shown.slice(1), language)}`;
}

/**
 * One output of a brief (a file or the value) as a numbered, highlighted listing, cut on the server at
 * {@link MAX_LINES} lines or {@link MAX_CHARS} characters with a link to the whole (`wholeHref`), so a
 * huge output cannot freeze the reviewer's page. A unified diff (`diff`, or any output that is one) is
 * shown as a diff: each line marked added, removed, context or header, the code in it highlighted as
 * `language`.
 */
export function outputView({
  text,
  language,
  wholeHref,
  label,
  diff = isUnifiedDiff(text),
}: {
  text: string;
  language: string;
  wholeHref: string;
  label: string;
  diff?: boolean;
}): Html {
  const classOf = diffClassifier();
  const lines: Html[] = [];
  let chars = 0;
  let cut = false;
  let partial = false;
  let start = 0;
  let total = 0;
  // Walks the text line by line without splitting all of it: a 1 MB output costs what is shown.
  while (start <= text.length) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end < 0 ? text.length : end);
    if (end < 0 && line === '' && total > 0) break;
    total += 1;
    if (!cut && (lines.length >= MAX_LINES || chars >= MAX_CHARS)) cut = true;
    if (!cut) {
      const shown = line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line;
      chars += shown.length;
      const tail = line.length > MAX_LINE_CHARS ? html`<span class="cut" title="line cut">…</span>` : '';
      const kind = diff ? classOf(line) : undefined;
      const body = kind === undefined ? highlightLine(shown, language) : diffLine(shown, kind, language);
      // A line with a bidi control, a zero-width or a control character is marked: its characters are spelled out.
      const hidden = hidesText(shown);
      const classes = [kind, hidden ? 'hidden-chars' : undefined].filter((name) => name !== undefined).join(' ');
      const mark = hidden ? html`<span class="hidden-mark" title="hidden characters spelled out">⚠ hidden characters</span> ` : '';
      lines.push(html`<li${classes === '' ? '' : html` class="${classes}"`}><code>${mark}${body}${tail}</code></li>`);
      if (line.length > MAX_LINE_CHARS) partial = true;
    }
    if (end < 0) break;
    start = end + 1;
  }
  const note =
    cut || partial
      ? html`<p class="truncated" role="note">
          Showing ${lines.length} of ${total} line(s), ${text.length.toLocaleString('en-US')} characters in all:
          <a href="${wholeHref}">the whole ${label}</a> (plain text).
        </p>`
      : '';
  return html`<ol class="listing${diff ? ' diff' : ''}" aria-label="${label}">
      ${lines}
    </ol>
    ${note}`;
}
