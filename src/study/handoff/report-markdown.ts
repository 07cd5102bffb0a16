import { BACKPRESSURE } from '../../review/backpressure.js';
import { DRAFT_QUALITY_WEIGHTS, HANDOFF_MODEL, MAX_PRIORITY, type HandoffModel, type QualityWeights } from './model.js';
import type { HandoffRow, HandoffStudy } from './run-handoff-study.js';

const weights = ({ good, minor, critical }: QualityWeights): string => `${good} / ${minor} / ${critical}`;
const pct = (fraction: number): string => `${Math.round(fraction * 100)}%`;
const fixed = (value: number): string => value.toFixed(1);

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, index) => (index < 2 ? '---' : '--:'))), ...rows.map(line)].join('\n');
}

function limitRange(row: HandoffRow): string {
  const limits = row.limitTrajectory.map(([, limit]) => limit);
  const low = Math.min(...limits);
  const high = Math.max(...limits);
  return low === high ? String(low) : `${low}–${high}`;
}

const trajectory = (row: HandoffRow): string => row.limitTrajectory.map(([minute, limit]) => `${limit} @${minute}`).join(', ');

/**
 * The study as a Markdown report: the model and its assumptions, one table row per configuration and
 * variant, each attempt-limit trajectory, and a link to the figure when given. Pass `draftWeights` and
 * `model` when the study ran with other values than the defaults, so that the text states them.
 *
 * @example
 * renderHandoffMarkdown(runHandoffStudy(), { figure: 'study-out/handoff-depth.svg' });
 */
export function renderHandoffMarkdown(
  study: HandoffStudy,
  {
    figure,
    draftWeights = DRAFT_QUALITY_WEIGHTS,
    model = HANDOFF_MODEL,
  }: { figure?: string; draftWeights?: QualityWeights; model?: HandoffModel } = {},
): string {
  const { approveProbability: approve, burstFactor, qualityWeights, tuner, watermarks } = model;
  const first = study[0];
  const minutes = first === undefined ? 0 : first.depth.length - 1;
  const capacity = first?.capacity ?? BACKPRESSURE.capacity;
  const rows = study.map((row) => [
    row.config,
    row.variant,
    `${row.productionRate} / ${row.reviewRate}`,
    String(row.bursts),
    String(row.arrivals),
    String(row.dropped),
    fixed(row.overflowPct),
    String(row.reviewed),
    fixed(row.approvePct),
    fixed(row.avgWaitMin),
    String(row.maxWaitMin),
    String(row.finalLimit),
    limitRange(row),
    String(row.degradedMinutes),
    String(row.breakerLogged),
    String(row.agentAttempts),
  ]);
  const out = [
    '# Handoff queue',
    '',
    `The per-minute model (docs/experiments.md) over ${minutes} minutes, seed ${first?.seed ?? '—'}, queue capacity ${capacity}. ` +
      `Each minute the agents produce their rate of items (×${burstFactor} in a burst minute); an item is good / minor / critical with weights ${weights(qualityWeights)}; ` +
      `the reviewers then take their rate and approve with probability ${approve.good} / ${approve.minor} / ${approve.critical}; ` +
      `then, once ${tuner.window} verdicts exist, the review queue's feedback tuner sets the attempt limit (start ${tuner.initial}) from the last ${tuner.window}: ` +
      `approve rate > ${pct(tuner.raiseAbove)} → +1, < ${pct(tuner.lowerBelow)} → −1, bounded [${tuner.min}, ${tuner.max}]; it runs every minute, new verdicts or not.`,
    '',
    '- **simple**: FIFO; an item arriving at a full queue overflows and is lost without a record.',
    `- **protocol** (docs/review.md, decided by the review queue's own backpressure policy): reviewers take the highest priority, then the oldest; ` +
      `depth above ${pct(watermarks.high)} of capacity → degraded, below ${pct(watermarks.low)} → normal; at capacity the lowest-priority item ` +
      '(then the oldest, the newcomer included) is dropped and written to the circuit-breaker log.',
    `- Assumptions of the protocol variant: priorities are uniform over 0–${MAX_PRIORITY} (the mission's priority, unrelated to a quality nobody has seen yet); ` +
      `an item produced in degraded mode is a one-attempt draft with quality weights ${weights(draftWeights)} ` +
      '(the refinement loop is taken to halve the defect shares); degraded mode does not change how many items arrive (they are runs that need review, arriving with the missions) but what they cost: ' +
      'agent attempts count the attempt limit of its time per refined item (a queued item is a cutoff, which used its whole budget) and 1 per draft.',
    '- Both variants draw the same bursts and, item by item, the same quality draws and priorities. Waits are whole minutes (0 = reviewed in the minute it arrived).',
    '',
    table(
      [
        'config',
        'variant',
        'produced / reviewed per min',
        'bursts',
        'arrivals',
        'dropped',
        'overflow %',
        'reviewed',
        'approved %',
        'avg wait (min)',
        'max wait (min)',
        'final limit',
        'limit range',
        'degraded min',
        'breaker log',
        'agent attempts',
      ],
      rows,
    ),
    '',
    '## Attempt limit',
    '',
    'Each trajectory as `limit @minute`, from the start and then at every change.',
    '',
    ...study.map((row) => `- ${row.config} ${row.variant}: ${trajectory(row)}`),
  ];
  if (figure !== undefined) out.push('', '## Figure', '', `![Review queue depth per minute](${figure})`);
  return `${out.join('\n')}\n`;
}
