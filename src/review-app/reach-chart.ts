import type { ReachRow } from '../analysis/stop-quality.js';
import { html, type Html } from './html.js';
import { short } from './short-text.js';

const [WIDTH, LABEL, ROW, BAR, RIGHT] = [640, 220, 30, 11, 48];
const OBSERVED = '#0b4f9c';
const TRUE = '#1b5e20';

const percent = (rate: number | null): string => (rate === null ? 'not judged' : `${(100 * rate).toFixed(1)}%`);

/**
 * Observed reach (what the loop believed) over true reach (what the shadow checks said) of each row, as
 * paired horizontal bars from 0 to 100% in an inline SVG drawn on the server; a row no shadow check judged
 * has no true bar. Keys are the ledger's text: escaped, shortened in the label, whole in each bar's title.
 */
export function reachChart({ id, label, rows }: { id: string; label: string; rows: readonly ReachRow[] }): Html {
  if (rows.length === 0) return html``;
  const height = rows.length * ROW + 18;
  const span = WIDTH - LABEL - RIGHT;
  const bar = (y: number, rate: number | null, color: string, title: string): Html =>
    rate === null
      ? html`<text x="${LABEL}" y="${y + BAR - 2}" font-size="10" fill="#4a4a4a">not judged</text>`
      : html`<rect x="${LABEL}" y="${y}" width="${Math.max(1, rate * span).toFixed(1)}" height="${BAR}" fill="${color}"
            ><title>${title}</title></rect
          >
          <text x="${(LABEL + rate * span + 4).toFixed(1)}" y="${y + BAR - 2}" font-size="10" fill="#4a4a4a">${percent(rate)}</text>`;
  return html`<figure class="chart">
    <svg id="${id}" role="img" aria-label="${label}" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">
      ${rows.map((row, index) => {
        const y = index * ROW + 4;
        return html`<text x="${LABEL - 6}" y="${y + BAR + 4}" font-size="11" fill="#1a1a1a" text-anchor="end">${short(row.key, 34)}</text>
          ${bar(y, row.observedReach, OBSERVED, `${row.key} · observed reach ${percent(row.observedReach)} of ${row.runs} run(s)`)}
          ${bar(y + BAR + 2, row.trueReach, TRUE, `${row.key} · true reach ${percent(row.trueReach)} of ${row.judged} judged`)}`;
      })}
      <line x1="${LABEL}" y1="0" x2="${LABEL}" y2="${height - 14}" stroke="#4a4a4a" />
      <text x="${LABEL}" y="${height - 2}" font-size="10" fill="#4a4a4a">0%</text>
      <text x="${LABEL + span}" y="${height - 2}" font-size="10" fill="#4a4a4a" text-anchor="end">100%</text>
    </svg>
    <figcaption class="legend">
      <span class="legend-entry"
        ><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${OBSERVED}" /></svg> observed reach</span
      >
      <span class="legend-entry"
        ><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${TRUE}" /></svg> true reach</span
      >
    </figcaption>
  </figure>`;
}
