import { AdaptivePriors } from '../guards/adaptive-priors.js';
import { adaptiveCdvStrategy, type CdvWarmup } from './adaptive-cdv-strategy.js';
import { buildCell, type Cell } from './cell.js';
import { resolveOptions, type StopRulesStudyOptions, type StudyConfig } from './options.js';
import { simulate, simulateAll, type Tally } from './simulate.js';
import { meanSd, type MeanSd } from './stats.js';
import {
  adaptiveStrategy,
  buildStrategy,
  noiseAwareStrategy,
  policyStrategy,
  STRATEGY_NAMES,
  warmPriors,
  type Strategy,
  type StrategyName,
} from './strategies.js';
import { generateTasks } from './task-model.js';
import { NOISE_MODES, noiseAwareVerdicts, type NoiseAwareResult, type NoiseAwareVerdict } from './verdicts.js';

/** One strategy at one σ, over the seeds. Reaches are percentages of the test tasks. */
export interface StrategyResult {
  /** A built-in {@link StrategyName}, or the name of a user-defined policy (`policies`). */
  readonly strategy: StrategyName | (string & {});
  readonly sigma: number;
  readonly meanSteps: MeanSd;
  readonly observedReach: MeanSd;
  readonly trueReach: MeanSd;
  /** Mean true quality q at the attempt the loop stopped on. */
  readonly finalScore: MeanSd;
}

/** Adaptive warmed on the first `warmupTasks` training tasks (without learning online), at σ = `sigma`. */
export interface ColdStartResult {
  readonly warmupTasks: number;
  readonly sigma: number;
  readonly meanSteps: MeanSd;
  readonly trueReach: MeanSd;
}

/**
 * adaptive-cdv warmed on the first `warmupTasks` training tasks, then learning from every test run it
 * finishes, at σ = `sigma`. `warmup` says how the warm-up tasks were learned: `rule` — run through the rule
 * and learned up to its stop; `whole` — learned over every attempt, as adaptive's warm-up is.
 */
export interface CdvColdStartResult extends ColdStartResult {
  readonly warmup: CdvWarmup;
}

/** What `redline study stop-rules --json` prints. */
export interface StopRulesStudy {
  readonly config: StudyConfig;
  readonly results: readonly StrategyResult[];
  readonly coldStart: readonly ColdStartResult[];
  /** adaptive-cdv's cold start, both ways of warming it (`rule` rows, then `whole` rows). */
  readonly adaptiveCdvColdStart: readonly CdvColdStartResult[];
  /** The noise-aware calibration sweep: every confidence, σ configured and estimated. */
  readonly noiseAware: readonly NoiseAwareResult[];
  /** Per σ, whether the calibration sweep is calibrated and matches confirm-2 (empty without a sweep). */
  readonly verdicts: readonly NoiseAwareVerdict[];
}

const CDV_WARMUPS: readonly CdvWarmup[] = ['rule', 'whole'];

/** Tallies per seed, by any number of indices. */
class Tallies {
  readonly #cells = new Map<string, Tally[]>();

  add(key: readonly (string | number)[], tally: Tally): void {
    const id = key.join('|');
    const list = this.#cells.get(id);
    if (list === undefined) this.#cells.set(id, [tally]);
    else list.push(tally);
  }

  get(key: readonly (string | number)[]): readonly Tally[] {
    return this.#cells.get(key.join('|')) ?? [];
  }
}

const over = (tallies: readonly Tally[], metric: Exclude<keyof Tally, 'stops'>): MeanSd => meanSd(tallies.map((tally) => tally[metric]));

/**
 * The stop-rules study (docs/stop-rules.md): simulates every strategy (each one the library's own guards) on the
 * same noisy scores, per seed and σ, and the user-defined `policies` after them; plus the cold-start
 * curves of adaptive and adaptive-cdv and the noise-aware calibration sweep. Deterministic: the same
 * options give the same result.
 *
 * @example
 * const study = await runStopRulesStudy({ seeds: 3, sigmas: [0.05, 0.1] });
 * study.results.find((row) => row.strategy === 'confirm-2' && row.sigma === 0.1)?.trueReach.mean;
 */
export async function runStopRulesStudy(options: StopRulesStudyOptions = {}): Promise<StopRulesStudy> {
  const { random, ...config } = resolveOptions(options);
  const { bar, cap, sigmas, seeds, trainTasks, warmup, confidences, coldStartSigma, noiseAwareConfidence, policies } = config;
  const names = [...STRATEGY_NAMES, ...policies.map((policy) => policy.name)];
  const strategies = new Tallies();
  const calibration = new Tallies();
  const coldStart = new Tallies();
  const cdvColdStart = new Tallies();
  const total = seeds * (sigmas.length + 1);
  let done = 0;
  const step = (): void => options.onProgress?.({ done: (done += 1), total });

  for (let index = 0; index < seeds; index += 1) {
    const tasks = generateTasks({ tasksPerType: config.tasksPerType, cap, seed: config.seed + index, random });
    let coldCell: Cell | undefined;
    for (const sigma of sigmas) {
      const cell = buildCell({ tasks, trainTasks, sigma });
      if (sigma === coldStartSigma) coldCell = cell;
      let warm: AdaptivePriors | undefined;
      const context = { bar, cap, cell, confidence: noiseAwareConfidence, warmPriors: () => (warm ??= warmPriors({ cell })) };
      // Every strategy of the cell in one pass: the noise-aware rules then share each posterior.
      const runs: { key: readonly (string | number)[]; tallies: Tallies; strategy: Strategy }[] = STRATEGY_NAMES.map((name) => ({
        key: [name, sigma],
        tallies: strategies,
        strategy: buildStrategy(name, context),
      }));
      for (const { name, guards } of policies)
        runs.push({ key: [name, sigma], tallies: strategies, strategy: policyStrategy({ cap, guards, priors: context.warmPriors }) });
      for (const noise of NOISE_MODES) {
        for (const confidence of confidences)
          runs.push({
            key: [noise, confidence, sigma],
            tallies: calibration,
            strategy: noiseAwareStrategy({ bar, cap, cell, confidence, noise }),
          });
      }
      const tallies = await simulateAll({ strategies: runs.map((run) => run.strategy), tasks: cell.test, bar });
      runs.forEach((run, at) => run.tallies.add(run.key, tallies[at] as Tally));
      step();
    }
    coldCell ??= buildCell({ tasks, trainTasks, sigma: coldStartSigma });
    // Warm-up sizes ascend: each size records only the tasks the previous one had not.
    const priors = new AdaptivePriors();
    let warmed = 0;
    for (const size of warmup) {
      warmPriors({ cell: coldCell, from: warmed, to: size, priors });
      warmed = size;
      coldStart.add([size], await simulate({ strategy: adaptiveStrategy({ bar, cap, priors }), tasks: coldCell.test, bar }));
    }
    for (const recorded of CDV_WARMUPS)
      for (const size of warmup) {
        const strategy = adaptiveCdvStrategy({ bar, cap, cell: coldCell, warmup: size, recorded });
        cdvColdStart.add([recorded, size], await simulate({ strategy, tasks: coldCell.test, bar }));
      }
    step();
  }

  const results = sigmas.flatMap((sigma) =>
    names.map((strategy): StrategyResult => {
      const tallies = strategies.get([strategy, sigma]);
      return {
        strategy,
        sigma,
        meanSteps: over(tallies, 'meanSteps'),
        observedReach: over(tallies, 'observedReach'),
        trueReach: over(tallies, 'trueReach'),
        finalScore: over(tallies, 'finalScore'),
      };
    }),
  );
  const noiseAware = sigmas.flatMap((sigma) =>
    NOISE_MODES.flatMap((noise) =>
      confidences.map((confidence): NoiseAwareResult => {
        const tallies = calibration.get([noise, confidence, sigma]);
        return { sigma, noise, confidence, meanSteps: over(tallies, 'meanSteps'), trueReach: over(tallies, 'trueReach') };
      }),
    ),
  );
  const confirm2 = (sigma: number): { meanSteps: number; trueReach: number } => {
    const row = results.find((result) => result.strategy === 'confirm-2' && result.sigma === sigma) as StrategyResult;
    return { meanSteps: row.meanSteps.mean, trueReach: row.trueReach.mean };
  };
  return {
    config,
    results,
    coldStart: warmup.map((warmupTasks): ColdStartResult => {
      const tallies = coldStart.get([warmupTasks]);
      return { warmupTasks, sigma: coldStartSigma, meanSteps: over(tallies, 'meanSteps'), trueReach: over(tallies, 'trueReach') };
    }),
    adaptiveCdvColdStart: CDV_WARMUPS.flatMap((recorded) =>
      warmup.map((warmupTasks): CdvColdStartResult => {
        const tallies = cdvColdStart.get([recorded, warmupTasks]);
        return {
          warmupTasks,
          sigma: coldStartSigma,
          meanSteps: over(tallies, 'meanSteps'),
          trueReach: over(tallies, 'trueReach'),
          warmup: recorded,
        };
      }),
    ),
    noiseAware,
    verdicts: confidences.length === 0 ? [] : noiseAwareVerdicts({ sigmas, noiseAware, confirm2 }),
  };
}
