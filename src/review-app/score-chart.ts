import { html, type Html } from './html.js';

const [WIDTH, HEIGHT, PAD] = [320, 90, 14];

/**
 * Scores by attempt as a small inline SVG line chart (0 to 1 on the vertical axis, each point titled with
 * its attempt and score). Presentation attributes only: the page's Content-Security-Policy allows no
 * inline style. Nothing when no attempt has a score.
 */
export function scoreChart(points: readonly { readonly attempt: number; readonly score: number }[]): Html {
  const shown = points.filter(({ score }) => Number.isFinite(score));
  if (shown.length === 0) return html``;
  const last = Math.max(...shown.map(({ attempt }) => attempt), 1);
  const first = Math.min(...shown.map(({ attempt }) => attempt));
  const x = (attempt: number): number => PAD + (last === first ? 0 : ((attempt - first) / (last - first)) * (WIDTH - 2 * PAD));
  const y = (score: number): number => HEIGHT - PAD - Math.max(0, Math.min(1, score)) * (HEIGHT - 2 * PAD);
  const line = shown.map(({ attempt, score }) => `${x(attempt).toFixed(1)},${y(score).toFixed(1)}`).join(' ');
  const label = `Scores by attempt: ${shown.map(({ attempt, score }) => `${attempt}: ${score.toFixed(3)}`).join(', ')}`;
  return html`<figure class="scores">
    <svg id="score-chart" role="img" aria-label="${label}" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">
      <line x1="${PAD}" y1="${y(0)}" x2="${WIDTH - PAD}" y2="${y(0)}" stroke="#d0d0d0" />
      <line x1="${PAD}" y1="${y(1)}" x2="${WIDTH - PAD}" y2="${y(1)}" stroke="#d0d0d0" stroke-dasharray="3 3" />
      <text x="0" y="${y(1) + 4}" font-size="10" fill="#4a4a4a">1</text>
      <text x="0" y="${y(0) + 4}" font-size="10" fill="#4a4a4a">0</text>
      <polyline points="${line}" fill="none" stroke="#0b4f9c" stroke-width="2" />
      ${shown.map(
        ({ attempt, score }) =>
          html`<circle cx="${x(attempt).toFixed(1)}" cy="${y(score).toFixed(1)}" r="3.5" fill="#0b4f9c"
            ><title>attempt ${attempt}: ${score.toFixed(3)}</title></circle
          >`,
      )}
    </svg>
    <figcaption class="keys">Score by attempt</figcaption>
  </figure>`;
}
