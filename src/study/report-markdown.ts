import type { MeanSd } from './stats.js';
import type { StopRulesStudy } from './run-study.js';
import { ESTIMATED_TOLERANCE, type NearMiss, type NoiseAwareVerdict } from './verdicts.js';

/** A figure to link from the report. */
export interface FigureLink {
  readonly title: string;
  /** Path as the reader should follow it, e.g. `study-out/reach-vs-sigma.svg`. */
  readonly path: string;
}

const fixed = (digits: number) => ({ mean, sd }: MeanSd): string => `${mean.toFixed(digits)} ± ${sd.toFixed(digits)}`;
const attempts = fixed(2);
const percent = fixed(1);
const quality = fixed(3);

function table(header: readonly string[], align: readonly ('l' | 'r')[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(align.map((side) => (side === 'l' ? '---' : '--:'))), ...rows.map(line)].join('\n');
}

function matches(values: readonly number[], nearest: NearMiss | undefined): string {
  if (values.length > 0) return `c = ${values.join(', ')}`;
  if (nearest === undefined) return 'none';
  const gaps = [nearest.reachShort > 0 ? `${nearest.reachShort.toFixed(1)} points short` : '', nearest.attemptsOver > 0 ? `${nearest.attemptsOver.toFixed(2)} attempts over` : ''].filter(Boolean);
  return `none (closest c = ${nearest.confidence}: ${nearest.trueReach.toFixed(1)}% in ${nearest.meanSteps.toFixed(2)} attempts, ${gaps.join(' and ')})`;
}

function verdictLines(verdict: NoiseAwareVerdict): string[] {
  const { sigma, calibrated, shortfalls, confirm2, beatsConfirm2, closest } = verdict;
  const short = shortfalls.map((item) => `${item.noise} c = ${item.confidence} short by ${item.short.toFixed(1)} points (${item.trueReach.toFixed(1)}% < ${item.required}%)`);
  const calibration = calibrated.configured && calibrated.estimated ? 'calibrated, σ configured and estimated' : `not calibrated: ${short.join('; ')}`;
  return [
    `- σ = ${sigma}: ${calibration}.`,
    `  Matches confirm-2 (≥ ${confirm2.trueReach.toFixed(1)}% true reach in ≤ ${confirm2.meanSteps.toFixed(2)} attempts): σ configured ${matches(beatsConfirm2.configured, closest.configured)}; σ estimated ${matches(beatsConfirm2.estimated, closest.estimated)}.`,
  ];
}

/**
 * The study as a Markdown report: a table per σ (strategies × metrics, mean ± sd over seeds), adaptive's
 * cold start, the noise-aware calibration sweep with its verdicts, and links to `figures`.
 */
export function renderMarkdown({ study, figures = [] }: { study: StopRulesStudy; figures?: readonly FigureLink[] }): string {
  const { config } = study;
  const lastSeed = config.seed + config.seeds - 1;
  const out: string[] = [
    '# Stop rules under judge noise',
    '',
    `Task model of SPEC §8.1: per seed, ${config.tasksPerType} easy, ${config.tasksPerType} medium and ${config.tasksPerType} hard tasks, shuffled; ` +
      `the first ${config.trainTasks} warm the learned priors and the other ${config.testTasks} are the test set. ` +
      `Bar ${config.bar}, cap ${config.cap} attempts, seeds ${config.seed === lastSeed ? config.seed : `${config.seed}–${lastSeed}`}; every number is the mean ± sd over seeds. ` +
      'Every strategy is the library\'s own guard stack and sees the same noisy scores (one N(0, 1) draw per task and attempt, scaled by σ; min-of-two adds a second judge with its own draws).',
    '',
    '- attempts: mean attempts used per test task.',
    '- observed reach: % of test tasks where the loop saw a score ≥ bar at or before its stop.',
    '- true reach: % of test tasks whose true quality q at the stop attempt is ≥ bar.',
    '- final score: mean true quality q at the stop attempt.',
    `- noise-aware: confidence ${config.noiseAwareConfidence}, told the true σ.`,
  ];
  for (const sigma of config.sigmas) {
    const rows = study.results.filter((row) => row.sigma === sigma).map((row) => [row.strategy, attempts(row.meanSteps), percent(row.observedReach), percent(row.trueReach), quality(row.finalScore)]);
    out.push('', `## σ = ${sigma}`, '', table(['strategy', 'attempts', 'observed reach %', 'true reach %', 'final score'], ['l', 'r', 'r', 'r', 'r'], rows));
  }
  out.push(
    '',
    `## Adaptive's cold start (σ = ${config.coldStartSigma})`,
    '',
    'Adaptive warmed on the first N training tasks, without learning online; until a task type has 3 finished runs it is `threshold`.',
    '',
    table(['warm-up tasks', 'attempts', 'true reach %'], ['r', 'r', 'r'], study.coldStart.map((row) => [String(row.warmupTasks), attempts(row.meanSteps), percent(row.trueReach)])),
  );
  const point = (sigma: number, noise: string, confidence: number) => study.noiseAware.find((row) => row.sigma === sigma && row.noise === noise && row.confidence === confidence);
  const rows = config.sigmas.flatMap((sigma) =>
    config.confidences.map((confidence) => {
      const known = point(sigma, 'configured', confidence);
      const estimated = point(sigma, 'estimated', confidence);
      return [String(sigma), String(confidence), known ? attempts(known.meanSteps) : '—', known ? percent(known.trueReach) : '—', estimated ? attempts(estimated.meanSteps) : '—', estimated ? percent(estimated.trueReach) : '—'];
    }),
  );
  out.push(
    '',
    '## Noise-aware calibration',
    '',
    `The noise-aware rule at each confidence c, told the true σ (configured) or estimating it from the scores. Calibrated: true reach ≥ 100·c with σ configured, ≥ 100·c − ${ESTIMATED_TOLERANCE} with σ estimated (judged on the means).`,
    '',
    table(['σ', 'c', 'configured attempts', 'configured true reach %', 'estimated attempts', 'estimated true reach %'], ['r', 'r', 'r', 'r', 'r', 'r'], rows),
    '',
    ...study.verdicts.flatMap(verdictLines),
  );
  if (figures.length > 0) out.push('', '## Figures', ...figures.flatMap(({ title, path }) => ['', `![${title}](${path})`]));
  return `${out.join('\n')}\n`;
}
