import { html, type Html } from './html.js';

/** One series of a stacked bar chart: its name (a legend entry) and its fill. */
export interface BarSeries {
  readonly name: string;
  readonly color: string;
}

/** One bar: its label (a period) and one value per series, in the series' order. */
export interface Bar {
  readonly label: string;
  readonly values: readonly number[];
}

const [HEIGHT, TOP, BOTTOM, LEFT, RIGHT] = [160, 10, 22, 44, 8];

/**
 * Bars of stacked series as an inline SVG drawn on the server: values from the bottom up in the series'
 * order, the tallest bar filling the height, a scale line at the top labelled with its value, the first and
 * last bars' labels under the axis, each segment titled with its bar, series and value. Presentation
 * attributes only: the page's Content-Security-Policy allows no inline style. `format` writes the values
 * (counts by default). The numbers are in a table beside it; the chart's label sums it up.
 */
export function barChart({
  id,
  label,
  series,
  bars,
  format = (value) => String(value),
}: {
  id: string;
  label: string;
  series: readonly BarSeries[];
  bars: readonly Bar[];
  format?: (value: number) => string;
}): Html {
  const width = Math.max(320, Math.min(960, LEFT + RIGHT + bars.length * 14));
  const slot = (width - LEFT - RIGHT) / Math.max(1, bars.length);
  const barWidth = Math.max(1, slot * 0.8);
  const top = bars.reduce(
    (most, { values }) =>
      Math.max(
        most,
        values.reduce((sum, value) => sum + Math.max(0, value), 0),
      ),
    0,
  );
  const scale = top === 0 ? 0 : (HEIGHT - TOP - BOTTOM) / top;
  const base = HEIGHT - BOTTOM;
  const segments = bars.map((bar, index) => {
    let y = base;
    const x = (LEFT + index * slot + (slot - barWidth) / 2).toFixed(1);
    return series.map(({ name, color }, part) => {
      const value = Math.max(0, bar.values[part] ?? 0);
      if (value === 0) return '';
      const height = value * scale;
      y -= height;
      return html`<rect x="${x}" y="${y.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${height.toFixed(1)}" fill="${color}"
        ><title>${bar.label} · ${name}: ${format(value)}</title></rect
      >`;
    });
  });
  const [first, last] = [bars[0], bars.at(-1)];
  return html`<figure class="chart">
    <svg id="${id}" role="img" aria-label="${label}" width="${width}" height="${HEIGHT}" viewBox="0 0 ${width} ${HEIGHT}">
      <line x1="${LEFT}" y1="${TOP}" x2="${width - RIGHT}" y2="${TOP}" stroke="#d0d0d0" stroke-dasharray="3 3" />
      <line x1="${LEFT}" y1="${base}" x2="${width - RIGHT}" y2="${base}" stroke="#4a4a4a" />
      <text x="${LEFT - 4}" y="${TOP + 4}" font-size="10" fill="#4a4a4a" text-anchor="end">${format(top)}</text>
      <text x="${LEFT - 4}" y="${base}" font-size="10" fill="#4a4a4a" text-anchor="end">0</text>
      ${segments}
      ${first === undefined ? '' : html`<text x="${LEFT}" y="${HEIGHT - 6}" font-size="10" fill="#4a4a4a">${first.label}</text>`}
      ${
        last === undefined || last === first
          ? ''
          : html`<text x="${width - RIGHT}" y="${HEIGHT - 6}" font-size="10" fill="#4a4a4a" text-anchor="end">${last.label}</text>`
      }
    </svg>
    <figcaption class="legend">
      ${series.map(
        ({ name, color }) =>
          html`<span class="legend-entry"
            ><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${color}" /></svg> ${name}</span
          >`,
      )}
    </figcaption>
  </figure>`;
}
