import { html, type Html } from './html.js';

/**
 * A table whose rows `j`/`k` walk and Enter opens (keys.js: rows marked `data-nav-row`, opened by their
 * `data-href`): the caption (what the rows are, and the keys), one header per column, the rows as given.
 */
export function navTable({
  id,
  caption,
  columns,
  rows,
}: {
  id: string;
  caption: Html | string;
  columns: readonly string[];
  rows: readonly Html[];
}): Html {
  return html`<table id="${id}" data-nav>
    <caption class="keys">
      ${caption}
    </caption>
    <thead>
      <tr>
        ${columns.map((column) => html`<th scope="col">${column}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}
