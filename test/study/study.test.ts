import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  runStopRulesStudy,
  STRATEGY_NAMES,
  StudyOptionError,
  type StopRulesStudy,
  type StopRulesStudyOptions,
} from '../../src/study/index.js';

const OPTIONS: StopRulesStudyOptions = {
  tasksPerType: 60,
  seeds: 3,
  sigmas: [0.02, 0.05, 0.1, 0.2],
  warmup: [0, 1, 2, 30, 90],
  confidences: [0.7, 0.9],
};

let study: StopRulesStudy;

const row = (strategy: string, sigma: number) => {
  const found = study.results.find((result) => result.strategy === strategy && result.sigma === sigma);
  assert.ok(found, `${strategy} at σ ${sigma}`);
  return found;
};

const isMeanSd = (value: unknown): boolean => {
  const { mean, sd, ...rest } = value as { mean: unknown; sd: unknown };
  return typeof mean === 'number' && typeof sd === 'number' && sd >= 0 && Object.keys(rest).length === 0;
};

describe('runStopRulesStudy', () => {
  before(async () => {
    study = await runStopRulesStudy(OPTIONS);
  });

  it('has the JSON shape of issue 4, with reach in percent', () => {
    assert.deepEqual(Object.keys(study), ['config', 'results', 'coldStart', 'adaptiveCdvColdStart', 'noiseAware', 'verdicts']);
    assert.deepEqual(study.config.sigmas, OPTIONS.sigmas);
    assert.deepEqual(study.config.strategies, STRATEGY_NAMES);
    assert.equal(study.results.length, 4 * STRATEGY_NAMES.length);
    for (const result of study.results) {
      assert.deepEqual(Object.keys(result), ['strategy', 'sigma', 'meanSteps', 'observedReach', 'trueReach', 'finalScore']);
      assert.ok(STRATEGY_NAMES.some((name) => name === result.strategy));
      for (const metric of [result.meanSteps, result.observedReach, result.trueReach, result.finalScore]) assert.ok(isMeanSd(metric));
      assert.ok(result.trueReach.mean >= 0 && result.trueReach.mean <= 100 && result.observedReach.mean <= 100);
      assert.ok(result.finalScore.mean > 0 && result.finalScore.mean <= 1);
    }
    assert.deepEqual(
      study.coldStart.map((point) => [point.warmupTasks, point.sigma]),
      OPTIONS.warmup?.map((size) => [size, 0.1]),
    );
    for (const point of study.coldStart) {
      assert.deepEqual(Object.keys(point), ['warmupTasks', 'sigma', 'meanSteps', 'trueReach']);
      assert.ok(isMeanSd(point.meanSteps) && isMeanSd(point.trueReach));
    }
    assert.equal(study.noiseAware.length, 4 * 2 * 2);
    for (const point of study.noiseAware) {
      assert.deepEqual(Object.keys(point), ['sigma', 'noise', 'confidence', 'meanSteps', 'trueReach']);
      assert.ok(point.noise === 'configured' || point.noise === 'estimated');
    }
    assert.deepEqual(
      study.verdicts.map((verdict) => verdict.sigma),
      OPTIONS.sigmas,
    );
    assert.deepEqual(JSON.parse(JSON.stringify(study)), study, 'plain JSON data');
  });

  it("a fixed budget's true reach does not depend on σ: the true curves and stops are the same at every σ", () => {
    for (const strategy of ['fixed-2', 'fixed-6']) {
      const reach = study.config.sigmas.map((sigma) => row(strategy, sigma));
      for (const other of reach) {
        assert.deepEqual(other.trueReach, reach[0]?.trueReach, strategy);
        assert.deepEqual(other.finalScore, reach[0]?.finalScore, strategy);
        assert.deepEqual(other.meanSteps, { mean: strategy === 'fixed-2' ? 2 : 6, sd: 0 });
      }
    }
  });

  it("threshold's observed reach stays near 100% while its true reach falls as σ grows", () => {
    const sigmas = study.config.sigmas;
    for (const sigma of sigmas) assert.ok(row('threshold', sigma).observedReach.mean >= 95, `observed reach at σ ${sigma}`);
    for (let index = 1; index < sigmas.length; index += 1) {
      const lower = row('threshold', sigmas[index - 1] as number).trueReach.mean;
      const higher = row('threshold', sigmas[index] as number).trueReach.mean;
      assert.ok(higher < lower, `true reach ${higher} at σ ${sigmas[index]} < ${lower} at σ ${sigmas[index - 1]}`);
    }
    assert.ok(
      row('threshold', 0.2).observedReach.mean - row('threshold', 0.2).trueReach.mean > 20,
      'the loop believes it reached the bar far more often than it did',
    );
  });

  it('confirm-2 uses at least as many attempts as threshold at every σ', () => {
    for (const sigma of study.config.sigmas) assert.ok(row('confirm-2', sigma).meanSteps.mean >= row('threshold', sigma).meanSteps.mean);
  });

  it('adaptive warmed on fewer than 3 runs per type is exactly threshold', () => {
    const threshold = row('threshold', 0.1);
    for (const point of study.coldStart.filter(({ warmupTasks }) => warmupTasks < 3)) {
      assert.deepEqual(
        [point.meanSteps, point.trueReach],
        [threshold.meanSteps, threshold.trueReach],
        `${point.warmupTasks} warm-up tasks`,
      );
    }
    const warm = study.coldStart.find(({ warmupTasks }) => warmupTasks === 90);
    assert.deepEqual(
      [warm?.meanSteps, warm?.trueReach],
      [row('adaptive', 0.1).meanSteps, row('adaptive', 0.1).trueReach],
      'warm on the whole training half is `adaptive`',
    );
  });

  it('the noise-aware strategy is the calibration point at its confidence with σ configured', () => {
    for (const sigma of study.config.sigmas) {
      const point = study.noiseAware.find((item) => item.sigma === sigma && item.noise === 'configured' && item.confidence === 0.9);
      assert.deepEqual([point?.meanSteps, point?.trueReach], [row('noise-aware', sigma).meanSteps, row('noise-aware', sigma).trueReach]);
    }
  });

  it('verdicts follow from the reported numbers', () => {
    for (const verdict of study.verdicts) {
      const points = study.noiseAware.filter((point) => point.sigma === verdict.sigma);
      for (const point of points) {
        const required = 100 * point.confidence - (point.noise === 'estimated' ? 2 : 0);
        const shortfall = verdict.shortfalls.find((item) => item.noise === point.noise && item.confidence === point.confidence);
        assert.equal(
          shortfall !== undefined,
          point.trueReach.mean < required - 1e-9,
          `${point.noise} c ${point.confidence} at σ ${verdict.sigma}`,
        );
        if (shortfall) assert.ok(Math.abs(shortfall.short - (required - point.trueReach.mean)) < 1e-3);
      }
      const confirm2 = row('confirm-2', verdict.sigma);
      assert.deepEqual(verdict.confirm2, { meanSteps: confirm2.meanSteps.mean, trueReach: confirm2.trueReach.mean });
      for (const noise of ['configured', 'estimated'] as const) {
        const expected = points
          .filter(
            (point) =>
              point.noise === noise && point.trueReach.mean >= confirm2.trueReach.mean && point.meanSteps.mean <= confirm2.meanSteps.mean,
          )
          .map((point) => point.confidence);
        assert.deepEqual(verdict.beatsConfirm2[noise], expected);
        const nearest = verdict.closest[noise];
        assert.equal(nearest === undefined, expected.length > 0, 'a nearest miss exactly when nothing matches');
        if (nearest === undefined) continue;
        const within = points.filter((point) => point.noise === noise && point.meanSteps.mean <= confirm2.meanSteps.mean);
        if (within.length > 0) assert.equal(nearest.trueReach, Math.max(...within.map((point) => point.trueReach.mean)));
        assert.ok(nearest.reachShort > 0 || nearest.attemptsOver > 0);
      }
    }
  });

  it('the same options give the same study; another seed gives another', async () => {
    assert.equal(JSON.stringify(await runStopRulesStudy(OPTIONS)), JSON.stringify(study));
    assert.notEqual(JSON.stringify(await runStopRulesStudy({ ...OPTIONS, seed: 2 })), JSON.stringify(study));
  });

  it('reports progress cell by cell', async () => {
    const seen: string[] = [];
    await runStopRulesStudy({
      tasksPerType: 4,
      seeds: 2,
      sigmas: [0.05, 0.1],
      warmup: [0],
      confidences: [],
      onProgress: ({ done, total }) => seen.push(`${done}/${total}`),
    });
    assert.deepEqual(seen, ['1/6', '2/6', '3/6', '4/6', '5/6', '6/6']);
  });
});

describe('runStopRulesStudy options', () => {
  const rejects = async (options: StopRulesStudyOptions, option: string, got: string) => {
    await assert.rejects(runStopRulesStudy(options), (error: unknown) => {
      assert.ok(error instanceof StudyOptionError);
      assert.ok(error instanceof TypeError);
      assert.deepEqual([error.option, error.got], [option, got]);
      assert.match(error.message, new RegExp(`^Expected \`${option}\` to be .+, got `));
      return true;
    });
  };

  it('rejects bad values, naming the option, what it expected and what it got', async () => {
    await rejects({ sigmas: [0.1, -0.1] }, 'sigmas', '[0.1, -0.1]');
    await rejects({ sigmas: [] }, 'sigmas', '[]');
    await rejects({ seeds: 0 }, 'seeds', '0');
    await rejects({ seed: 1.5 }, 'seed', '1.5');
    await rejects({ tasksPerType: 0 }, 'tasksPerType', '0');
    await rejects({ bar: 1.2 }, 'bar', '1.2');
    await rejects({ cap: 5 }, 'cap', '5');
    await rejects({ tasksPerType: 10, warmup: [0, 16] }, 'warmup', '[0, 16]');
    await rejects({ confidences: [0.9, 1] }, 'confidences', '[0.9, 1]');
  });

  it('sorts lists, drops repeats and keeps default warm-up sizes within the training half', async () => {
    const { config, noiseAware, verdicts } = await runStopRulesStudy({
      tasksPerType: 4,
      seeds: 1,
      sigmas: [0.1, 0.05, 0.1],
      confidences: [],
    });
    assert.deepEqual(config.sigmas, [0.05, 0.1]);
    assert.deepEqual(config.warmup, [0, 3, 6]);
    assert.deepEqual([noiseAware, verdicts], [[], []], 'an empty confidence list skips the calibration sweep');
  });
});
