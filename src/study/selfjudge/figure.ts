import type { Mark, Spec } from 'vega';
import { MissingPeerError } from '../../errors/missing-peer-error.js';
import { writeOutFiles } from '../out-dir.js';
import type { SelfJudgeStudy } from './run-selfjudge-study.js';

const WIDTH = 300;
const HEIGHT = 220;
const FONT = 'Helvetica, Arial, sans-serif';
export const SELFJUDGE_FIGURE = 'redline-vs-selfjudge.svg';

/** One panel: grouped bars per task (`all` last), one bar per condition, optional Wilson whiskers. */
function panel(title: string, data: string, yTitle: string, domainMax: number | undefined, whiskers: boolean): Mark {
  const y = { scale: 'y', field: 'value' };
  return {
    type: 'group',
    title: { text: title, fontSize: 12, anchor: 'start' },
    encode: { enter: { width: { value: WIDTH }, height: { value: HEIGHT } } },
    scales: [
      { name: 'x', type: 'band', domain: { data, field: 'task' }, range: [0, WIDTH], padding: 0.2 },
      { name: 'x2', type: 'band', domain: { data, field: 'condition' }, range: [0, { signal: "bandwidth('x')" }], padding: 0.05 },
      {
        name: 'y',
        type: 'linear',
        domain: domainMax === undefined ? { data, field: 'value' } : [0, domainMax],
        range: [HEIGHT, 0],
        nice: true,
        zero: true,
      },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', labelAngle: -20, labelAlign: 'right' },
      { orient: 'left', scale: 'y', title: yTitle, grid: true },
    ],
    marks: [
      {
        type: 'rect',
        from: { data },
        encode: {
          enter: {
            x: { signal: "scale('x', datum.task) + scale('x2', datum.condition)" },
            width: { scale: 'x2', band: 1 },
            y,
            y2: { scale: 'y', value: 0 },
            fill: { scale: 'color', field: 'condition' },
          },
        },
      },
      ...(whiskers
        ? [
            {
              type: 'rule' as const,
              from: { data },
              encode: {
                enter: {
                  x: { signal: "scale('x', datum.task) + scale('x2', datum.condition) + bandwidth('x2') / 2" },
                  y: { scale: 'y', field: 'low' },
                  y2: { scale: 'y', field: 'high' },
                  stroke: { value: '#333' },
                },
              },
            },
          ]
        : []),
    ],
  };
}

/** Convergence (with Wilson 95% intervals) and mean attempts per task and condition, side by side. */
export function selfJudgeSpec(study: SelfJudgeStudy): Spec {
  const rows = study.cells.map((cell) => ({
    task: cell.task,
    condition: cell.condition === 'redline' ? 'A red line' : 'B self-judge',
    cell,
  }));
  return {
    padding: 12,
    autosize: 'pad',
    background: 'white',
    config: {
      text: { font: FONT },
      title: { font: FONT },
      axis: { labelFont: FONT, titleFont: FONT },
      legend: { labelFont: FONT, titleFont: FONT },
    },
    title: { text: `Red line vs self-judge: ${study.config.trials} trial(s) per task and condition`, anchor: 'start' },
    data: [
      {
        name: 'converged',
        values: rows.map(({ task, condition, cell }) => ({
          task,
          condition,
          value: 100 * (cell.converged.rate ?? 0),
          low: 100 * cell.converged.low,
          high: 100 * cell.converged.high,
        })),
      },
      { name: 'attempts', values: rows.map(({ task, condition, cell }) => ({ task, condition, value: cell.meanAttempts.mean })) },
    ],
    scales: [{ name: 'color', type: 'ordinal', domain: ['A red line', 'B self-judge'], range: ['#4c78a8', '#f58518'] }],
    layout: { columns: 2, padding: 36, bounds: 'full' },
    legends: [{ fill: 'color', title: 'condition', orient: 'right' }],
    marks: [
      panel('Converged (% of trials, Wilson 95%)', 'converged', '% of trials', 100, true),
      panel('Attempts (mean per trial)', 'attempts', 'attempts', undefined, false),
    ],
  };
}

/**
 * Renders the figure with Vega (an optional peer, loaded only here) and writes it into `dir`.
 * @returns the path written.
 */
export async function writeSelfJudgeFigure({ study, dir }: { study: SelfJudgeStudy; dir: string }): Promise<string> {
  const vega = await MissingPeerError.load(() => import('vega'), { packageName: 'vega', purpose: "draw the study's SVG figures" });
  const view = new vega.View(vega.parse(selfJudgeSpec(study)), { renderer: 'none' });
  try {
    const svg = `${await view.toSVG()}\n`;
    const [written] = await writeOutFiles({ dir, files: { [SELFJUDGE_FIGURE]: svg } });
    return written as string;
  } finally {
    view.finalize();
  }
}
