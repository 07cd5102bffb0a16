import type { Config, Scale, Spec } from 'vega';
import type { StopRulesStudy } from './run-study.js';
import { STRATEGY_NAMES } from './strategies.js';

const WIDTH = 320;
const HEIGHT = 240;
const FONT = 'Helvetica, Arial, sans-serif';

/** Settings shared by every figure: fixed size, white background, one font. */
const frame: Pick<Spec, 'padding' | 'autosize' | 'background'> & { config: Config } = {
  padding: 12,
  autosize: 'pad',
  background: 'white',
  config: {
    text: { font: FONT },
    title: { font: FONT },
    axis: { labelFont: FONT, titleFont: FONT },
    legend: { labelFont: FONT, titleFont: FONT },
  },
};

/**
 * The reach figure's lines: every built-in strategy but adaptive-cdv, which is in the tables only, as user
 * policies are (ten lines already fill the palette).
 */
const FIGURE_STRATEGIES: readonly string[] = STRATEGY_NAMES.filter((name) => name !== 'adaptive-cdv');

/** The reach axis: percent of test tasks, always 0–100 so that figures compare. */
const reachScale: Scale = { name: 'y', type: 'linear', domain: [0, 100], range: [HEIGHT, 0] };

/**
 * True and observed reach vs σ, one line per built-in strategy but adaptive-cdv, in two panels side by side.
 *
 * @example
 * new vega.View(vega.parse(reachSpec(study)), { renderer: 'none' }).toSVG()
 */
export function reachSpec(study: StopRulesStudy): Spec {
  const panels = [
    { panel: 'True reach (q at the stop ≥ bar)', order: 0, metric: 'trueReach' },
    { panel: 'Observed reach (saw a score ≥ bar)', order: 1, metric: 'observedReach' },
  ] as const;
  const values = panels.flatMap(({ panel, order, metric }) =>
    study.results
      .filter((row) => FIGURE_STRATEGIES.includes(row.strategy))
      .sort((a, b) => a.sigma - b.sigma)
      .map((row) => ({ panel, order, strategy: row.strategy, sigma: row.sigma, value: row[metric].mean })),
  );
  const point = { x: { scale: 'x', field: 'sigma' }, y: { scale: 'y', field: 'value' } };
  return {
    ...frame,
    title: { text: `Reach vs judge noise σ (mean of ${study.config.seeds} seeds, bar ${study.config.bar})`, anchor: 'start' },
    data: [{ name: 'points', values }],
    scales: [
      { name: 'x', type: 'linear', domain: { data: 'points', field: 'sigma' }, range: [0, WIDTH], zero: false, nice: false, padding: 8 },
      reachScale,
      { name: 'color', type: 'ordinal', domain: [...FIGURE_STRATEGIES], range: { scheme: 'tableau10' } },
    ],
    layout: { columns: 2, padding: 28, bounds: 'full' },
    legends: [{ stroke: 'color', fill: 'color', symbolType: 'circle', title: 'strategy', orient: 'right' }],
    marks: [
      {
        type: 'group',
        from: { facet: { name: 'panel', data: 'points', groupby: ['order', 'panel'] } },
        sort: { field: 'datum.order' },
        title: { text: { signal: 'parent.panel' }, fontSize: 12, anchor: 'start' },
        encode: { enter: { width: { value: WIDTH }, height: { value: HEIGHT } } },
        axes: [
          { orient: 'bottom', scale: 'x', title: 'judge noise σ', values: [...study.config.sigmas] },
          { orient: 'left', scale: 'y', title: '% of test tasks', grid: true },
        ],
        marks: [
          {
            type: 'group',
            from: { facet: { name: 'series', data: 'panel', groupby: 'strategy' } },
            marks: [
              {
                type: 'line',
                from: { data: 'series' },
                encode: { enter: { ...point, stroke: { scale: 'color', field: 'strategy' }, strokeWidth: { value: 1.5 } } },
              },
              {
                type: 'symbol',
                from: { data: 'series' },
                encode: { enter: { ...point, fill: { scale: 'color', field: 'strategy' }, size: { value: 20 } } },
              },
            ],
          },
        ],
      },
    ],
  };
}

/**
 * Adaptive's true reach vs the number of warm-up tasks (mean ± sd over seeds), with threshold's true
 * reach at the same σ as a dashed reference when the sweep has it.
 */
export function coldStartSpec(study: StopRulesStudy): Spec {
  const { coldStartSigma, seeds } = study.config;
  const values = study.coldStart.map((row) => ({
    warmup: row.warmupTasks,
    mean: row.trueReach.mean,
    low: row.trueReach.mean - row.trueReach.sd,
    high: row.trueReach.mean + row.trueReach.sd,
  }));
  const threshold = study.results.find((row) => row.strategy === 'threshold' && row.sigma === coldStartSigma);
  const x = { scale: 'x', field: 'warmup' };
  return {
    ...frame,
    width: WIDTH,
    height: HEIGHT,
    title: { text: `Adaptive's cold start at σ = ${coldStartSigma} (mean ± sd of ${seeds} seeds)`, anchor: 'start' },
    data: [
      { name: 'points', values },
      { name: 'reference', values: threshold === undefined ? [] : [{ value: threshold.trueReach.mean }] },
    ],
    scales: [{ name: 'x', type: 'point', domain: study.coldStart.map((row) => row.warmupTasks), range: 'width', padding: 0.5 }, reachScale],
    axes: [
      { orient: 'bottom', scale: 'x', title: 'warm-up tasks (training runs learned from)' },
      { orient: 'left', scale: 'y', title: 'true reach (% of test tasks)', grid: true },
    ],
    marks: [
      {
        type: 'rule',
        from: { data: 'reference' },
        encode: {
          enter: {
            x: { value: 0 },
            x2: { signal: 'width' },
            y: { scale: 'y', field: 'value' },
            stroke: { value: '#888' },
            strokeDash: { value: [4, 4] },
          },
        },
      },
      {
        type: 'text',
        from: { data: 'reference' },
        encode: {
          enter: {
            x: { signal: 'width' },
            y: { scale: 'y', field: 'value', offset: -4 },
            text: { value: 'threshold' },
            align: { value: 'right' },
            fill: { value: '#666' },
            fontSize: { value: 10 },
          },
        },
      },
      {
        type: 'rule',
        from: { data: 'points' },
        encode: { enter: { x, y: { scale: 'y', field: 'low' }, y2: { scale: 'y', field: 'high' }, stroke: { value: '#4e79a7' } } },
      },
      {
        type: 'line',
        from: { data: 'points' },
        encode: { enter: { x, y: { scale: 'y', field: 'mean' }, stroke: { value: '#4e79a7' }, strokeWidth: { value: 2 } } },
      },
      {
        type: 'symbol',
        from: { data: 'points' },
        encode: { enter: { x, y: { scale: 'y', field: 'mean' }, fill: { value: '#4e79a7' }, size: { value: 30 } } },
      },
    ],
  };
}
