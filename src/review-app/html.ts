// The one place untrusted text (agent output, file names, test names, mission text) is made safe for a
// page: `html` escapes every interpolation unless it is already `Html` built here, so a page cannot
// carry raw markup from a run by accident.

import { clean, cleanExcept } from '../core/untrusted-text.js';

/** Tab, line feed and carriage return: as whitespace a page shows them as what they are. */
const WHITESPACE = new Set([9, 10, 13]);

/**
 * `text` as a page may show it: every control, bidi control and zero-width character spelled out
 * (`\u{202e}`, `\u{200b}`), so what a reviewer reads is the order and the characters a program reads.
 */
export function visibleText(text: string): string {
  return cleanExcept(text, WHITESPACE);
}

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` with `& < > " '` as entities: safe as element content and inside a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] as string);
}

/**
 * Agent text as a page shows it in a `<pre>`: every control character, line separator and bidi control
 * spelled out (`\x1b`, `\u{202e}`), as the terminal shows them, the line breaks kept. `html` still escapes it.
 */
export function spelledOut(text: string): string {
  return text.split('\n').map(clean).join('\n');
}

/** Only this module holds it: no other code can make `Html` out of a string. */
const MADE_HERE = Symbol('html');

/** Markup made by `html`: its interpolations were escaped when it was built. */
export class Html {
  readonly #markup: string;
  constructor(markup: string, key: symbol) {
    if (key !== MADE_HERE) throw new TypeError('Expected Html made by the html template, got a string');
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

/** What `html` accepts: escaped text, numbers, nested markup, lists of them; `undefined`, `null` and `false` render nothing. */
export type HtmlValue = string | number | Html | undefined | null | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  if (typeof value === 'number') return escapeHtml(String(value));
  if (typeof value === 'string') return escapeHtml(visibleText(value));
  throw new TypeError(`Expected text, a number or Html in a page, got ${typeof value}`);
}

/**
 * A tagged template for pages: every `${value}` is escaped (text, numbers; hidden characters spelled out
 * by {@link visibleText}) or kept (`Html` made here).
 * Attribute values must be quoted in the template.
 * @example
 * html`<p title="${item.task}">${item.task}</p>` // `<script>` in the task renders as text
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let markup = strings[0] ?? '';
  for (const [index, value] of values.entries()) markup += render(value) + (strings[index + 1] ?? '');
  return new Html(markup, MADE_HERE);
}
