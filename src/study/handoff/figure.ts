import { MissingPeerError } from '../../errors/missing-peer-error.js';
import type { Config, Spec } from 'vega';
import { BACKPRESSURE } from '../../review/backpressure.js';
import { writeOutFiles } from '../out-dir.js';
import type { HandoffStudy } from './run-handoff-study.js';

const WIDTH = 320;
const HEIGHT = 180;
const FONT = 'Helvetica, Arial, sans-serif';
const config: Config = {
  text: { font: FONT },
  title: { font: FONT },
  axis: { labelFont: FONT, titleFont: FONT },
  legend: { labelFont: FONT, titleFont: FONT },
};

/** The protocol's watermarks, as fractions of capacity. */
type Watermarks = { readonly high: number; readonly low: number };

/** File name of the figure that `writeHandoffFigure` writes. */
export const HANDOFF_FIGURE_FILE = 'handoff-depth.svg';

/**
 * Queue depth at the end of each minute, one panel per configuration: the simple model solid, the
 * protocol dashed, the minutes the protocol ended degraded shaded, capacity and watermarks as rules.
 */
export function handoffFigureSpec(study: HandoffStudy, { high, low }: Watermarks = BACKPRESSURE): Spec {
  const order = [...new Set(study.map((row) => row.config))];
  const panel = (name: string) => ({ config: name, order: order.indexOf(name) });
  const points = study.flatMap((row) => row.depth.map((depth, minute) => ({ ...panel(row.config), variant: row.variant, minute, depth })));
  // Minute m is drawn over (m − 1, m].
  const degraded = study.flatMap((row) =>
    row.variant === 'protocol' ? row.degradedSpans.map(([first, last]) => ({ config: row.config, from: first - 1, to: last })) : [],
  );
  const capacity = Math.max(...study.map((row) => row.capacity));
  const minutes = Math.max(...study.map((row) => row.depth.length - 1));
  const levels = [
    { value: capacity, label: 'capacity' },
    { value: high * capacity, label: `high watermark ${Math.round(high * 100)}%` },
    { value: low * capacity, label: `low watermark ${Math.round(low * 100)}%` },
  ];
  const seed = study[0]?.seed;
  return {
    padding: 12,
    autosize: 'pad',
    background: 'white',
    config,
    title: {
      text: `Review queue depth per minute (seed ${seed})`,
      subtitle: 'solid: simple model; dashed: full protocol; shaded: protocol in degraded mode',
      anchor: 'start',
    },
    data: [
      { name: 'points', values: points },
      { name: 'degraded', values: degraded },
      { name: 'levels', values: levels },
    ],
    scales: [
      { name: 'x', type: 'linear', domain: [0, minutes], range: [0, WIDTH], nice: false, zero: true },
      { name: 'y', type: 'linear', domain: [0, capacity], range: [HEIGHT, 0], nice: false, zero: true },
      { name: 'color', type: 'ordinal', domain: ['simple', 'protocol'], range: ['#a0cbe8', '#e15759'] },
      { name: 'dash', type: 'ordinal', domain: ['simple', 'protocol'], range: [[], [5, 3]] },
      // Both variants often have the same depth: the simple line is wider so that it shows under the dashes.
      { name: 'width', type: 'ordinal', domain: ['simple', 'protocol'], range: [3, 1.5] },
    ],
    layout: { columns: 2, padding: 24, bounds: 'full' },
    legends: [{ stroke: 'color', strokeDash: 'dash', symbolType: 'stroke', title: 'variant', orient: 'right' }],
    marks: [
      {
        type: 'group',
        from: { facet: { name: 'panel', data: 'points', groupby: ['order', 'config'] } },
        sort: { field: 'datum.order' },
        title: { text: { signal: "'Configuration ' + parent.config" }, fontSize: 12, anchor: 'start' },
        encode: { enter: { width: { value: WIDTH }, height: { value: HEIGHT } } },
        data: [{ name: 'spans', source: 'degraded', transform: [{ type: 'filter', expr: 'datum.config === parent.config' }] }],
        axes: [
          { orient: 'bottom', scale: 'x', title: 'minute' },
          { orient: 'left', scale: 'y', title: 'items in queue', grid: true },
        ],
        marks: [
          {
            type: 'rect',
            from: { data: 'spans' },
            encode: {
              enter: {
                x: { scale: 'x', field: 'from' },
                x2: { scale: 'x', field: 'to' },
                y: { value: 0 },
                y2: { field: { group: 'height' } },
                fill: { value: '#e15759' },
                fillOpacity: { value: 0.12 },
              },
            },
          },
          {
            type: 'rule',
            from: { data: 'levels' },
            encode: {
              enter: {
                x: { value: 0 },
                x2: { field: { group: 'width' } },
                y: { scale: 'y', field: 'value' },
                stroke: { value: '#999' },
                strokeDash: { value: [2, 3] },
              },
            },
          },
          {
            type: 'text',
            from: { data: 'levels' },
            encode: {
              enter: {
                x: { value: 2 },
                y: { scale: 'y', field: 'value', offset: -3 },
                text: { field: 'label' },
                fill: { value: '#777' },
                fontSize: { value: 9 },
              },
            },
          },
          {
            type: 'group',
            from: { facet: { name: 'series', data: 'panel', groupby: 'variant' } },
            marks: [
              {
                type: 'line',
                from: { data: 'series' },
                encode: {
                  enter: {
                    x: { scale: 'x', field: 'minute' },
                    y: { scale: 'y', field: 'depth' },
                    stroke: { scale: 'color', field: 'variant' },
                    strokeDash: { scale: 'dash', field: 'variant' },
                    strokeWidth: { scale: 'width', field: 'variant' },
                  },
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

/**
 * The queue-depth figure as an SVG document, rendered headless by Vega (no browser, no canvas). Vega is
 * loaded only here, so the study itself never pays for it.
 */
export async function renderHandoffFigure(study: HandoffStudy, watermarks: Watermarks = BACKPRESSURE): Promise<string> {
  const vega = await MissingPeerError.load(() => import('vega'), { packageName: 'vega', purpose: "draw the study's SVG figures" });
  const view = new vega.View(vega.parse(handoffFigureSpec(study, watermarks)), { renderer: 'none' });
  try {
    return `${await view.toSVG()}\n`;
  } finally {
    view.finalize();
  }
}

/**
 * Renders the figure into `dir` (created if missing) as {@link HANDOFF_FIGURE_FILE}; returns the path written.
 * @throws {StudyOptionError} for option `out` when `dir` is a file, lies under one, or cannot be written.
 */
export async function writeHandoffFigure({
  study,
  dir,
  watermarks = BACKPRESSURE,
}: {
  study: HandoffStudy;
  dir: string;
  /** The watermarks the protocol ran with, drawn as rules. @default 0.8 and 0.3 */
  watermarks?: Watermarks;
}): Promise<string> {
  const [file] = await writeOutFiles({ dir, files: { [HANDOFF_FIGURE_FILE]: await renderHandoffFigure(study, watermarks) } });
  return file as string;
}
