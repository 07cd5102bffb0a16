import { InvalidArgumentError, type Command } from 'commander';
import { fraction, integer, number } from './arguments.js';
import type { HandoffSeedsOptions } from '../study/handoff/index.js';
import type { StudyOptionError } from '../study/study-option-error.js';
import type { Output } from './run-command.js';

// The simulator is imported when the study runs, so that the rest of the CLI starts without it.

/** `redline study handoff` options as commander parses them. */
export interface HandoffCommandOptions {
  readonly config?: string;
  readonly seed?: number;
  readonly seeds?: number;
  readonly minutes?: number;
  readonly productionRate?: number;
  readonly reviewRate?: number;
  readonly burstProbability?: number;
  readonly burstFactor?: number;
  readonly capacity?: number;
  readonly high?: number;
  readonly low?: number;
  readonly qualityWeights?: Triple;
  readonly approveProbability?: Triple;
  readonly tunerWindow?: number;
  readonly tunerMin?: number;
  readonly tunerMax?: number;
  readonly solveReviewRate?: number;
  readonly out?: string;
  readonly json?: boolean;
}

/** Values for good, minor and critical items. */
type Triple = { good: number; minor: number; critical: number };

const DEFAULT_OUT = 'study-out';

/** Three comma-separated numbers: good, minor, critical. */
function triple(text: string): Triple {
  const values = text.split(',').map((item) => (item.trim() === '' ? Number.NaN : Number(item)));
  if (values.length !== 3 || !values.every(Number.isFinite))
    throw new InvalidArgumentError(`Expected three comma-separated numbers (good,minor,critical), got ${JSON.stringify(text)}.`);
  const [good, minor, critical] = values as [number, number, number];
  return { good, minor, critical };
}

/** The flag that sets each study option (a pattern for the per-configuration rates). */
const FLAGS: readonly (readonly [RegExp, string, keyof HandoffCommandOptions])[] = [
  [/^seed$/, '--seed', 'seed'],
  [/^seeds$/, '--seeds', 'seeds'],
  [/^minutes$/, '--minutes', 'minutes'],
  [/^capacity$/, '--capacity', 'capacity'],
  [/^burstFactor$/, '--burst-factor', 'burstFactor'],
  [/^qualityWeights/, '--quality-weights', 'qualityWeights'],
  [/^approveProbability/, '--approve-probability', 'approveProbability'],
  [/^watermarks\.high$/, '--high', 'high'],
  [/^watermarks\.low$/, '--low', 'low'],
  [/^tuner\.window$/, '--tuner-window', 'tunerWindow'],
  [/^tuner\.min$/, '--tuner-min', 'tunerMin'],
  [/^tuner\.max$/, '--tuner-max', 'tunerMax'],
  [/^configs\[\d+\]\.productionRate$/, '--production-rate', 'productionRate'],
  [/^configs\[\d+\]\.reviewRate$/, '--review-rate', 'reviewRate'],
  [/^configs\[\d+\]\.burstProbability$/, '--burst-probability', 'burstProbability'],
  [/^targetPct$/, '--solve-review-rate', 'solveReviewRate'],
  [/^out$/, '--out', 'out'],
];

/**
 * A study option error as the CLI's usage error (exit 2): named by the flag that set the field, else by
 * the field in the configuration file, else by the flag that would set it.
 */
function usageError(error: unknown, options: HandoffCommandOptions, optionError: typeof StudyOptionError): unknown {
  if (!(error instanceof optionError)) return error;
  const flag = FLAGS.find(([pattern]) => pattern.test(error.option));
  const file = options.config;
  let name: string;
  if (file !== undefined && error.option === '(file)') name = '--config';
  else if (file !== undefined && (flag === undefined || options[flag[2]] === undefined))
    name = error.option === '(root)' ? JSON.stringify(file) : `\`${error.option}\` in ${JSON.stringify(file)}`;
  else name = flag?.[1] ?? `\`${error.option}\``;
  return new TypeError(`Expected ${name} to be ${error.expected}, got ${error.got}`, { cause: error });
}

const given = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/** The study options: the configuration file's, then the flags over them. */
async function studyOptions(options: HandoffCommandOptions): Promise<HandoffSeedsOptions> {
  const [{ loadHandoffConfig, HANDOFF_CONFIGS }] = await Promise.all([import('../study/handoff/index.js')]);
  const file: HandoffSeedsOptions = options.config === undefined ? {} : await loadHandoffConfig(options.config);
  const rates = {
    ...given('productionRate', options.productionRate),
    ...given('reviewRate', options.reviewRate),
    ...given('burstProbability', options.burstProbability),
  };
  // Rates from flags set every configuration of the file, or make one configuration, `custom`, from A's.
  const base = file.configs ?? (Object.keys(rates).length === 0 ? undefined : [{ ...(HANDOFF_CONFIGS[0] as object), name: 'custom' }]);
  // The rates are checked with the rest when the study resolves its options.
  const configs = base?.map((config) => ({ ...config, ...rates })) as HandoffSeedsOptions['configs'];
  const tuner = {
    ...file.tuner,
    ...given('window', options.tunerWindow),
    ...given('min', options.tunerMin),
    ...given('max', options.tunerMax),
  };
  const watermarks = { ...file.watermarks, ...given('high', options.high), ...given('low', options.low) };
  return {
    ...file,
    ...given('seed', options.seed),
    ...given('seeds', options.seeds),
    ...given('minutes', options.minutes),
    ...given('capacity', options.capacity),
    ...given('burstFactor', options.burstFactor),
    ...given('qualityWeights', options.qualityWeights),
    ...given('approveProbability', options.approveProbability),
    ...(configs === undefined ? {} : { configs }),
    ...(Object.keys(tuner).length === 0 ? {} : { tuner }),
    ...(Object.keys(watermarks).length === 0 ? {} : { watermarks }),
  };
}

/**
 * `redline study handoff`: configurations A–D (or the user's), simple model and full protocol; over
 * several seeds with `--seeds`; the reviewer rate that keeps overflow at most a target with `--solve-review-rate`.
 */
export async function handoffCommand(options: HandoffCommandOptions, { print }: Output): Promise<number> {
  const [{ assertOutDir }, { StudyOptionError }, handoff, { resolveHandoffOptions }] = await Promise.all([
    import('../study/out-dir.js'),
    import('../study/study-option-error.js'),
    import('../study/handoff/index.js'),
    import('../study/handoff/options.js'),
  ]);
  const json = options.json === true;
  try {
    const study = await studyOptions(options);
    const single = options.solveReviewRate === undefined && study.seeds === undefined;
    if (!single && options.out !== undefined)
      throw new StudyOptionError({
        option: 'out',
        expected: 'given only for one seed (the figure shows one)',
        got: JSON.stringify(options.out),
      });
    if (options.solveReviewRate !== undefined) {
      const answer = handoff.solveReviewRate({ ...study, targetPct: options.solveReviewRate });
      print(json ? JSON.stringify(answer) : handoff.renderReviewRateMarkdown(answer).trimEnd());
      return 0;
    }
    if (!single) {
      const result = handoff.runHandoffSeeds(study);
      print(json ? JSON.stringify(result) : handoff.renderHandoffSeedsMarkdown(result).trimEnd());
      return 0;
    }
    // Figures go to --out, or to the default directory for Markdown; a bad --out is refused before the study runs.
    const out = json ? options.out : (options.out ?? DEFAULT_OUT);
    if (out !== undefined) await assertOutDir(out);
    const rows = handoff.runHandoffStudy(study);
    const { model, draftWeights } = resolveHandoffOptions(study);
    const figure =
      out === undefined ? undefined : await handoff.writeHandoffFigure({ study: rows, dir: out, watermarks: model.watermarks });
    print(json ? JSON.stringify(rows) : handoff.renderHandoffMarkdown(rows, { model, draftWeights, ...given('figure', figure) }).trimEnd());
    return 0;
  } catch (error) {
    throw usageError(error, options, StudyOptionError);
  }
}

/** Adds `study handoff` under the `study` command. */
export function addHandoffCommand({ study, done, output }: { study: Command; done: (code: number) => void; output: Output }): void {
  study
    .command('handoff')
    .description(
      'Handoff queue (docs/experiments.md): configurations A–D (or yours) in the simple per-minute model and under the full review-queue protocol (watermarks, degraded mode, priority drops).',
    )
    .option('--config <file>', 'JSON or YAML file with any of the study fields (docs/experiments.md); the flags below override it')
    .option('--seed <n>', 'seed of every random draw; with --seeds, the first (default 1)', integer)
    .option('--seeds <n>', 'repeat over this many seeds and report mean ± sd and when the tuner first reaches each bound', integer)
    .option('--minutes <n>', 'simulated minutes (default 120)', integer)
    .option(
      '--production-rate <n>',
      "items produced per minute: one configuration, 'custom' (A's other values), or every configuration of --config",
      integer,
    )
    .option('--review-rate <n>', 'items reviewed per minute (as --production-rate)', integer)
    .option('--burst-probability <p>', 'probability that a minute is a burst (as --production-rate)', fraction)
    .option('--burst-factor <n>', 'a burst minute produces this many times the production rate (default 3)', integer)
    .option('--capacity <n>', 'review queue capacity (default 50)', integer)
    .option('--high <fraction>', 'high watermark of the protocol, a fraction of capacity (default 0.8)', number)
    .option('--low <fraction>', 'low watermark of the protocol, a fraction of capacity (default 0.3)', number)
    .option('--quality-weights <g,m,c>', 'weights of good, minor and critical items (default 70,20,10)', triple)
    .option('--approve-probability <g,m,c>', 'probability a reviewer approves a good, minor, critical item (default 0.95,0.3,0.1)', triple)
    .option('--tuner-window <n>', 'verdicts the feedback tuner reads (default 10)', integer)
    .option('--tuner-min <n>', "the tuner's lower bound (default 3)", integer)
    .option('--tuner-max <n>', "the tuner's upper bound (default 15)", integer)
    .option(
      '--solve-review-rate <pct>',
      'print the smallest whole reviewer rate whose mean overflow over the seeds (default 10) is at most this percentage, per configuration',
      number,
    )
    .option('--out <dir>', `directory for handoff-depth.svg, one seed only (default ${DEFAULT_OUT}; with --json, only when given)`)
    .option('--json', 'print JSON: one object per configuration and variant; with --seeds or --solve-review-rate, one document')
    .addHelpText(
      'after',
      '\nThe same options and seed give byte-identical output. Exit code 2 for a bad option value or configuration field, named.',
    )
    .action(async (options: HandoffCommandOptions) => done(await handoffCommand(options, output)));
}
