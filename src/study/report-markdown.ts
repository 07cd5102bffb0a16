import type { MeanSd } from './stats.js';
import type { StopRulesStudy } from './run-study.js';
import { TASK_TYPES } from './task-model.js';
import { ESTIMATED_TOLERANCE, type NearMiss, type NoiseAwareVerdict } from './verdicts.js';

/** A figure to link from the report. */
export interface FigureLink {
  readonly title: string;
  /** Path as the reader should follow it, e.g. `study-out/reach-vs-sigma.svg`. */
  readonly path: string;
}

const fixed =
  (digits: number) =>
  ({ mean, sd }: MeanSd): string =>
    `${mean.toFixed(digits)} ± ${sd.toFixed(digits)}`;
const attempts = fixed(2);
const percent = fixed(1);
const quality = fixed(3);

function table(header: readonly string[], align: readonly ('l' | 'r')[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(align.map((side) => (side === 'l' ? '---' : '--:'))), ...rows.map(line)].join('\n');
}

/** Decimals that show `gap` as non-zero: `base`, or more for a smaller gap, up to the study's 4. */
function visibleDigits(gap: number, base: number): number {
  let digits = base;
  while (digits < 4 && Number(gap.toFixed(digits)) === 0) digits += 1;
  return digits;
}

/**
 * The confidences that match confirm-2, or that none does and by how much the closest misses. A miss
 * is printed with the decimals it needs to show: 99.97% against 100.00%, never "100.0% … 0.0 short".
 */
function matches(values: readonly number[], nearest: NearMiss | undefined, confirm2: NoiseAwareVerdict['confirm2']): string {
  if (values.length > 0) return `c = ${values.join(', ')}`;
  if (nearest === undefined) return 'none (no confidence was run)';
  const reach = visibleDigits(nearest.reachShort, 1);
  const steps = visibleDigits(nearest.attemptsOver, 2);
  const misses = [
    nearest.reachShort > 0
      ? `${nearest.reachShort.toFixed(reach)} points of true reach (${nearest.trueReach.toFixed(reach)}% < ${confirm2.trueReach.toFixed(reach)}%)`
      : '',
    nearest.attemptsOver > 0
      ? `${nearest.attemptsOver.toFixed(steps)} attempts (${nearest.meanSteps.toFixed(steps)} > ${confirm2.meanSteps.toFixed(steps)})`
      : '',
  ].filter(Boolean);
  const other = nearest.reachShort > 0 ? `in ${nearest.meanSteps.toFixed(2)} attempts` : `at ${nearest.trueReach.toFixed(1)}% true reach`;
  return `none: no confidence matches; the closest, c = ${nearest.confidence}, misses by ${misses.join(' and ')}${misses.length === 1 ? `, ${other}` : ''}`;
}

/** The noise-aware rule's verdict at one σ as two Markdown list lines: calibration, and the match against confirm-2. */
export function verdictLines(verdict: NoiseAwareVerdict): string[] {
  const { sigma, calibrated, shortfalls, confirm2, beatsConfirm2, closest } = verdict;
  const short = shortfalls.map((item) => {
    const digits = visibleDigits(item.short, 1);
    return `${item.noise} c = ${item.confidence} short by ${item.short.toFixed(digits)} points (${item.trueReach.toFixed(digits)}% < ${item.required.toFixed(digits)}%)`;
  });
  const calibration =
    calibrated.configured && calibrated.estimated ? 'calibrated, σ configured and estimated' : `not calibrated: ${short.join('; ')}`;
  return [
    `- σ = ${sigma}: ${calibration}.`,
    `  Matches confirm-2 (≥ ${confirm2.trueReach.toFixed(1)}% true reach in ≤ ${confirm2.meanSteps.toFixed(2)} attempts): σ configured ${matches(beatsConfirm2.configured, closest.configured, confirm2)}; σ estimated ${matches(beatsConfirm2.estimated, closest.estimated, confirm2)}.`,
  ];
}

/** The task types' ranges: `easy (s0 0.6–0.75, r 0.8–1.2), …`. */
function taskTypes(): string {
  return Object.entries(TASK_TYPES)
    .map(([type, { s0, r }]) => `${type} (s0 ${s0[0]}–${s0[1]}, r ${r[0]}–${r[1]})`)
    .join(', ');
}

/**
 * The study as a Markdown report: a table per σ (strategies × metrics, mean ± sd over seeds), the cold
 * starts of adaptive and adaptive-cdv, the noise-aware calibration sweep with its verdicts, and links to `figures`.
 */
export function renderMarkdown({ study, figures = [] }: { study: StopRulesStudy; figures?: readonly FigureLink[] }): string {
  const { config } = study;
  const lastSeed = config.seed + config.seeds - 1;
  const out: string[] = [
    '# Stop rules under judge noise',
    '',
    `Task model: per seed, ${config.tasksPerType} tasks of each type, start quality s0 and rate r drawn uniformly — ${taskTypes()} — and shuffled; ` +
      `the first ${config.trainTasks} warm the learned priors and the other ${config.testTasks} are the test set. ` +
      "At attempt t a task's true quality is q(t) = 1 − (1 − s0)·e^(−r·(t − 1)). " +
      `Bar ${config.bar}, cap ${config.cap} attempts, seeds ${config.seed === lastSeed ? config.seed : `${config.seed}–${lastSeed}`}; every number is the mean ± sd over seeds. ` +
      "Every strategy is the library's own guard stack and sees the same noisy scores (one N(0, 1) draw per task and attempt, scaled by σ; min-of-two adds a second judge with its own draws).",
    '',
    '- attempts: mean attempts used per test task.',
    '- observed reach: % of test tasks where the loop saw a score ≥ bar at or before its stop.',
    '- true reach: % of test tasks whose true quality q at the stop attempt is ≥ bar.',
    '- final score: mean true quality q at the stop attempt.',
    `- noise-aware: confidence ${config.noiseAwareConfidence}, told the true σ.`,
    "- adaptive-cdv: CDV's adaptive rule as published (per attempt index, threshold until 3 learned gains; then plateau(0.01, 3)), learning from every run it finishes: the training half, then the test set.",
    ...config.policies.map(
      ({ name, guards }) =>
        `- ${name} (--policy): the attempt budget, then ${guards.map((guard) => JSON.stringify(guard)).join(', ') || 'no guard'}.`,
    ),
  ];
  for (const sigma of config.sigmas) {
    const rows = study.results
      .filter((row) => row.sigma === sigma)
      .map((row) => [row.strategy, attempts(row.meanSteps), percent(row.observedReach), percent(row.trueReach), quality(row.finalScore)]);
    out.push(
      '',
      `## σ = ${sigma}`,
      '',
      table(['strategy', 'attempts', 'observed reach %', 'true reach %', 'final score'], ['l', 'r', 'r', 'r', 'r'], rows),
    );
  }
  out.push(
    '',
    `## Adaptive's cold start (σ = ${config.coldStartSigma})`,
    '',
    'Adaptive warmed on the first N training tasks, without learning online; until a task type has 3 finished runs it is `threshold`.',
    '',
    table(
      ['warm-up tasks', 'attempts', 'true reach %'],
      ['r', 'r', 'r'],
      study.coldStart.map((row) => [String(row.warmupTasks), attempts(row.meanSteps), percent(row.trueReach)]),
    ),
  );
  out.push(
    '',
    `## adaptive-cdv's cold start (σ = ${config.coldStartSigma})`,
    '',
    'adaptive-cdv warmed on the first N training tasks, then run on the test set, learning from every test run it finishes (up to its stop). ' +
      'Warm-up by the rule: it ran on the warm-up tasks and learned each up to its stop. Warm-up whole: each warm-up task learned over every attempt, as adaptive is warmed.',
    '',
    table(
      ['warm-up tasks', 'by the rule: attempts', 'by the rule: true reach %', 'whole: attempts', 'whole: true reach %'],
      ['r', 'r', 'r', 'r', 'r'],
      config.warmup.map((size) => {
        const cells = (warmup: string): string[] => {
          const row = study.adaptiveCdvColdStart.find((item) => item.warmupTasks === size && item.warmup === warmup);
          return row === undefined ? ['—', '—'] : [attempts(row.meanSteps), percent(row.trueReach)];
        };
        return [String(size), ...cells('rule'), ...cells('whole')];
      }),
    ),
  );
  const point = (sigma: number, noise: string, confidence: number) =>
    study.noiseAware.find((row) => row.sigma === sigma && row.noise === noise && row.confidence === confidence);
  const rows = config.sigmas.flatMap((sigma) =>
    config.confidences.map((confidence) => {
      const known = point(sigma, 'configured', confidence);
      const estimated = point(sigma, 'estimated', confidence);
      return [
        String(sigma),
        String(confidence),
        known ? attempts(known.meanSteps) : '—',
        known ? percent(known.trueReach) : '—',
        estimated ? attempts(estimated.meanSteps) : '—',
        estimated ? percent(estimated.trueReach) : '—',
      ];
    }),
  );
  out.push(
    '',
    '## Noise-aware calibration',
    '',
    `The noise-aware rule at each confidence c, told the true σ (configured) or estimating it from the scores. Calibrated: true reach ≥ 100·c with σ configured, ≥ 100·c − ${ESTIMATED_TOLERANCE} with σ estimated (judged on the means).`,
    '',
    table(
      ['σ', 'c', 'configured attempts', 'configured true reach %', 'estimated attempts', 'estimated true reach %'],
      ['r', 'r', 'r', 'r', 'r', 'r'],
      rows,
    ),
    '',
    ...study.verdicts.flatMap(verdictLines),
  );
  if (figures.length > 0) out.push('', '## Figures', ...figures.flatMap(({ title, path }) => ['', `![${title}](${path})`]));
  return `${out.join('\n')}\n`;
}
