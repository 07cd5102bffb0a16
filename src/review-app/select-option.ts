import { html, type Html } from './html.js';

/** An `<option>` of a filter's `<select>`, selected when `value` is the filter's (the empty value when none is). */
export function option(value: string, label: string, selected: string | undefined): Html {
  return html`<option value="${value}" ${value === (selected ?? '') ? html` selected` : ''}>${label}</option>`;
}
