import type { MeanSd } from '../stats.js';
import type { QualityWeights } from './model.js';
import type { BoundReach, HandoffSeedsStudy } from './seeds.js';
import type { RateOverflow, ReviewRateStudy } from './solve-review-rate.js';

const weights = ({ good, minor, critical }: QualityWeights): string => `${good} / ${minor} / ${critical}`;
const pm = ({ mean, sd }: MeanSd, digits = 1): string => `${mean.toFixed(digits)} ± ${sd.toFixed(digits)}`;
const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

function table(header: readonly string[], rows: readonly (readonly string[])[], text: number): string {
  return [line(header), line(header.map((_, index) => (index < text ? '---' : '--:'))), ...rows.map(line)].join('\n');
}

function reach(bound: BoundReach, seeds: number): string {
  if (bound.minute === null || bound.range === null) return `never (0/${seeds})`;
  return `${pm(bound.minute)} (${bound.reached}/${seeds}; ${bound.range[0]}–${bound.range[1]})`;
}

/** The parameters a study ran with, as one paragraph. */
function parameters({ seed, seeds, minutes, capacity, draftWeights, model }: Omit<HandoffSeedsStudy, 'rows'>): string {
  const { burstFactor, qualityWeights, approveProbability: approve, watermarks, tuner } = model;
  return (
    `Seeds ${seed}–${seed + seeds - 1} (${seeds}), ${minutes} minutes, queue capacity ${capacity}, burst ×${burstFactor}, ` +
    `quality weights ${weights(qualityWeights)} (drafts ${weights(draftWeights)}), approve probability ${approve.good} / ${approve.minor} / ${approve.critical}, ` +
    `watermarks ${watermarks.high} / ${watermarks.low}, tuner start ${tuner.initial}, window ${tuner.window}, bounds [${tuner.min}, ${tuner.max}], ` +
    `> ${tuner.raiseAbove} raises, < ${tuner.lowerBelow} lowers.`
  );
}

/**
 * The handoff study over several seeds as Markdown: each measure as mean ± sd, and when the feedback
 * tuner first reached each bound (mean ± sd over the seeds that reached it, how many did, earliest–latest).
 *
 * @example
 * renderHandoffSeedsMarkdown(runHandoffSeeds({ seeds: 20 }));
 */
export function renderHandoffSeedsMarkdown(study: HandoffSeedsStudy): string {
  const { rows, seeds, model } = study;
  return [
    '# Handoff queue over seeds',
    '',
    `${parameters(study)} Every number is mean ± sd over the seeds (the per-minute model of docs/experiments.md; \`study handoff\` without \`--seeds\` describes it).`,
    '',
    table(
      [
        'config',
        'variant',
        'produced / reviewed per min',
        'arrivals',
        'overflow %',
        'avg wait (min)',
        'max wait (min)',
        'approved %',
        'final limit',
        'degraded min',
      ],
      rows.map((row) => [
        row.config,
        row.variant,
        `${row.productionRate} / ${row.reviewRate}`,
        pm(row.arrivals),
        pm(row.overflowPct),
        pm(row.avgWaitMin),
        pm(row.maxWaitMin),
        pm(row.approvePct),
        pm(row.finalLimit),
        pm(row.degradedMinutes),
      ]),
      2,
    ),
    '',
    '## When the tuner first reaches its bounds',
    '',
    `Minute at which the attempt limit first stood at the lower bound ${model.tuner.min} and the upper bound ${model.tuner.max}: ` +
      'mean ± sd over the seeds that reached it (how many of the seeds did; earliest–latest).',
    '',
    table(
      ['config', 'variant', `first at ${model.tuner.min} (min)`, `first at ${model.tuner.max} (min)`],
      rows.map((row) => [row.config, row.variant, reach(row.firstReach.min, seeds), reach(row.firstReach.max, seeds)]),
      2,
    ),
    '',
  ].join('\n');
}

const rate = ({ reviewRate, overflowPct, maxOverflowPct }: RateOverflow): string =>
  `${reviewRate}/min: ${pm(overflowPct, 2)} % (worst seed ${maxOverflowPct.toFixed(2)} %)`;

/**
 * The reviewer rates `solveReviewRate` found, as Markdown: per configuration the smallest rate that keeps
 * the mean overflow at most the target, the overflow there and one rate below.
 */
export function renderReviewRateMarkdown({ seed, seeds, minutes, capacity, targetPct: target, solutions }: ReviewRateStudy): string {
  return [
    '# Reviewer rate for an overflow target',
    '',
    `The smallest whole reviewer rate (items per minute) whose overflow, averaged over seeds ${seed}–${seed + seeds - 1}, is at most ${target} %, ` +
      `over ${minutes} minutes with queue capacity ${capacity}. Overflow is the same in the simple model and under the protocol (the queue depth is); ` +
      'one rate below is shown to prove the answer is the smallest.',
    '',
    table(
      ['config', 'produced per min', 'burst probability', 'reviewer rate', 'overflow at it', 'one below'],
      solutions.map((solution) => [
        solution.config,
        String(solution.productionRate),
        String(solution.burstProbability),
        solution.reviewRate === null ? 'none' : String(solution.reviewRate),
        solution.reviewRate === null ? `${rate(solution.at)}: one minute's arrivals overflow the queue` : rate(solution.at),
        solution.below === null ? '—' : rate(solution.below),
      ]),
      1,
    ),
    '',
  ].join('\n');
}
