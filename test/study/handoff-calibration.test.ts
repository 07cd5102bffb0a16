import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { handoffConfig } from '../../src/study/handoff/config-file.js';
import { firstReach } from '../../src/study/handoff/first-reach.js';
import { meanSd } from '../../src/study/stats.js';
import { StudyOptionError } from '../../src/study/study-option-error.js';
import { tempDir } from '../helpers/workspace.js';
import {
  HANDOFF_CONFIGS,
  HANDOFF_MODEL,
  loadHandoffConfig,
  renderHandoffSeedsMarkdown,
  renderReviewRateMarkdown,
  runHandoffSeeds,
  runHandoffStudy,
  solveReviewRate,
  type HandoffConfig,
  type HandoffSeedsRow,
  type HandoffSeedsStudy,
} from '../../src/study/handoff/index.js';

const seedsRow = (study: HandoffSeedsStudy, config: string, variant: 'simple' | 'protocol'): HandoffSeedsRow => {
  const found = study.rows.find((row) => row.config === config && row.variant === variant);
  assert.ok(found, `no row for ${config} ${variant}`);
  return found;
};

const A = HANDOFF_CONFIGS[0] as HandoffConfig;

describe('the calibratable handoff model', () => {
  it('gives the same rows with every default written out as with none', () => {
    const { burstFactor, qualityWeights, approveProbability, watermarks, tuner } = HANDOFF_MODEL;
    assert.deepEqual(runHandoffStudy({ burstFactor, qualityWeights, approveProbability, watermarks, tuner }), runHandoffStudy());
  });

  it('keeps configurations A–D within 3 points of 0 / 34 / 0 / 30 % overflow over seeds', () => {
    const study = runHandoffSeeds({ seeds: 10 });
    for (const [config, published] of [
      ['A', 0],
      ['B', 34],
      ['C', 0],
      ['D', 30],
    ] as const) {
      for (const variant of ['simple', 'protocol'] as const) {
        const { mean } = seedsRow(study, config, variant).overflowPct;
        assert.ok(Math.abs(mean - published) <= 3, `${config} ${variant}: ${mean}% vs ${published}%`);
      }
    }
  });

  it('uses the burst factor, the approve probabilities, the watermarks and the tuner it is given', () => {
    const bursty: HandoffConfig = { name: 'X', productionRate: 2, reviewRate: 3, burstProbability: 1 };
    const [tripled] = runHandoffStudy({ configs: [bursty], minutes: 10 });
    const [fivefold] = runHandoffStudy({ configs: [bursty], minutes: 10, burstFactor: 5 });
    assert.equal(tripled?.arrivals, 60);
    assert.equal(fivefold?.arrivals, 100);

    const [always] = runHandoffStudy({ configs: [A], approveProbability: { good: 1, minor: 1, critical: 1 } });
    assert.equal(always?.approvePct, 100);
    const [bounded] = runHandoffStudy({ configs: [A], approveProbability: { good: 1, minor: 1, critical: 1 }, tuner: { max: 8 } });
    assert.equal(bounded?.finalLimit, 8);

    const overload: HandoffConfig = { name: 'B', productionRate: 5, reviewRate: 3, burstProbability: 0.015 };
    const [, defaultProtocol] = runHandoffStudy({ configs: [overload] });
    const [, lateProtocol] = runHandoffStudy({ configs: [overload], watermarks: { high: 1, low: 0.1 } });
    assert.ok(defaultProtocol !== undefined && lateProtocol !== undefined);
    assert.ok(lateProtocol.degradedMinutes < defaultProtocol.degradedMinutes, 'a higher watermark degrades later');
  });

  it('names the bad field of the model', () => {
    const cases: [Parameters<typeof runHandoffStudy>[0], string][] = [
      [{ tuner: { min: 6, max: 4 } }, 'tuner.max'],
      [{ tuner: { window: 0 } }, 'tuner.window'],
      [{ tuner: { initial: 20 } }, 'tuner.initial'],
      [{ watermarks: { high: 0.5, low: 0.6 } }, 'watermarks.low'],
      [{ watermarks: { high: 0 } }, 'watermarks.high'],
      [{ approveProbability: { good: 0.9, minor: 1.2, critical: 0 } }, 'approveProbability.minor'],
      [{ qualityWeights: { good: 0, minor: 0, critical: 0 } }, 'qualityWeights'],
      [{ burstFactor: 0 }, 'burstFactor'],
      [{ burstFactor: 1.5 }, 'burstFactor'],
    ];
    for (const [options, option] of cases)
      assert.throws(
        () => runHandoffStudy(options),
        (error: unknown) => error instanceof StudyOptionError && error.option === option,
        option,
      );
  });
});

describe('runHandoffSeeds', () => {
  it('reports each measure as mean ± sd over the seeds, each seed as runHandoffStudy gives it', () => {
    const study = runHandoffSeeds({ seeds: 3, seed: 5 });
    assert.deepEqual([study.seed, study.seeds], [5, 3]);
    const singles = [5, 6, 7].map((seed) => runHandoffStudy({ seed }));
    study.rows.forEach((row, index) => {
      const same = singles.map((rows) => rows[index]);
      assert.deepEqual(row.overflowPct, meanSd(same.map((item) => item?.overflowPct ?? Number.NaN)));
      assert.deepEqual(row.avgWaitMin, meanSd(same.map((item) => item?.avgWaitMin ?? Number.NaN)));
      assert.deepEqual(row.finalLimit, meanSd(same.map((item) => item?.finalLimit ?? Number.NaN)));
    });
    assert.ok(seedsRow(study, 'D', 'simple').overflowPct.sd > 0, 'seeds differ');
    assert.deepEqual(runHandoffSeeds({ seeds: 3, seed: 5 }), study);
    assert.match(renderHandoffSeedsMarkdown(study), /\| D \| simple \| 2 \/ 1 \| [\d.]+ ± [\d.]+ \| [\d.]+ ± [\d.]+ \|/);
  });

  it('reports when the tuner first reaches each bound, seed by seed', () => {
    // Every verdict approves: from the minute 10 verdicts exist (minute 4 at 3 reviews a minute), the limit rises 5 → 15 a step a minute.
    const approving = runHandoffSeeds({ seeds: 4, configs: [A], approveProbability: { good: 1, minor: 1, critical: 1 } });
    const up = seedsRow(approving, 'A', 'simple').firstReach;
    assert.deepEqual(up.max, { limit: 15, reached: 4, minute: { mean: 14, sd: 0 }, range: [14, 14], minutes: [14, 14, 14, 14] });
    assert.deepEqual(up.min, { limit: 3, reached: 0, minute: null, range: null, minutes: [null, null, null, null] });
    const rejecting = runHandoffSeeds({
      seeds: 2,
      configs: [A],
      approveProbability: { good: 0, minor: 0, critical: 0 },
      tuner: { min: 2 },
    });
    assert.deepEqual(seedsRow(rejecting, 'A', 'protocol').firstReach.min.minutes, [7, 7]);
    assert.match(renderHandoffSeedsMarkdown(rejecting), /\| A \| simple \| 7\.0 ± 0\.0 \(2\/2; 7–7\) \| never \(0\/2\) \|/);

    const published = seedsRow(runHandoffSeeds({ seeds: 20 }), 'A', 'simple').firstReach.max;
    const reached = published.minutes.filter((minute): minute is number => minute !== null);
    assert.deepEqual(published.minute, meanSd(reached));
    assert.deepEqual(published.range, [Math.min(...reached), Math.max(...reached)]);
  });

  it('refuses a bad number of seeds', () => {
    assert.throws(
      () => runHandoffSeeds({ seeds: 0 }),
      (error: unknown) => error instanceof StudyOptionError && error.option === 'seeds',
    );
  });
});

describe('firstReach', () => {
  it('is the minute the limit first stood at the value: 0 from the start, null never', () => {
    const trajectory = [
      [0, 5],
      [10, 6],
      [12, 5],
      [20, 6],
    ] as const;
    assert.equal(firstReach(trajectory, 6), 10);
    assert.equal(firstReach(trajectory, 5), 0);
    assert.equal(firstReach(trajectory, 7), null);
  });
});

describe('solveReviewRate', () => {
  /** Mean overflow % over seeds 1..seeds, simulated apart from the solver. */
  const overflowAt = (config: HandoffConfig, reviewRate: number, seeds: number, capacity = 50): number =>
    meanSd(
      Array.from(
        { length: seeds },
        (_, index) => runHandoffStudy({ seed: 1 + index, capacity, configs: [{ ...config, reviewRate }] })[0]?.overflowPct ?? Number.NaN,
      ),
    ).mean;

  it('finds the smallest whole reviewer rate that keeps mean overflow at most the target: checked at it and just below', () => {
    const mine: HandoffConfig = { name: 'mine', productionRate: 7, reviewRate: 0, burstProbability: 0.1 };
    for (const targetPct of [0, 2, 20]) {
      const [answer] = solveReviewRate({ targetPct, seeds: 5, configs: [mine], capacity: 30 }).solutions;
      const rate = answer?.reviewRate;
      assert.ok(typeof rate === 'number' && rate > 0, `a rate for ${targetPct}%`);
      assert.ok(overflowAt(mine, rate, 5, 30) <= targetPct, `${rate}/min keeps to ${targetPct}%`);
      assert.ok(overflowAt(mine, rate - 1, 5, 30) > targetPct, `${rate - 1}/min overflows more than ${targetPct}%`);
      assert.equal(answer?.at.overflowPct.mean, overflowAt(mine, rate, 5, 30));
      assert.equal(answer?.below?.reviewRate, rate - 1);
    }
    // A looser target never needs more reviewers.
    const rates = [0, 5, 30].map((targetPct) => solveReviewRate({ targetPct, seeds: 3, configs: [mine] }).solutions[0]?.reviewRate);
    assert.ok((rates[0] as number) >= (rates[1] as number) && (rates[1] as number) >= (rates[2] as number), String(rates));
  });

  it('answers none when one minute brings more items than the queue holds', () => {
    const flood: HandoffConfig = { name: 'flood', productionRate: 30, reviewRate: 0, burstProbability: 0.5 };
    const study = solveReviewRate({ targetPct: 0, seeds: 2, configs: [flood] });
    assert.equal(study.solutions[0]?.reviewRate, null);
    assert.equal(study.solutions[0]?.at.reviewRate, 90);
    assert.match(renderReviewRateMarkdown(study), /\| flood \| 30 \| 0\.5 \| none \|/);
  });

  it('refuses a target outside [0, 100]', () => {
    assert.throws(
      () => solveReviewRate({ targetPct: -1 }),
      (error: unknown) => error instanceof StudyOptionError && error.option === 'targetPct',
    );
  });
});

describe('handoff configuration files', () => {
  it('reads JSON and YAML into study options', async () => {
    const dir = await tempDir('redline-handoff-');
    const yaml = path.join(dir, 'handoff.yaml');
    await writeFile(
      yaml,
      'seeds: 3\ntuner:\n  window: 5\n  max: 9\nconfigs:\n  - { name: mine, productionRate: 3, reviewRate: 2, burstProbability: 0.02 }\n',
    );
    const options = await loadHandoffConfig(yaml);
    assert.deepEqual(options, {
      seeds: 3,
      tuner: { window: 5, max: 9 },
      configs: [{ name: 'mine', productionRate: 3, reviewRate: 2, burstProbability: 0.02 }],
    });
    const json = path.join(dir, 'handoff.json');
    await writeFile(json, JSON.stringify(options));
    assert.deepEqual(await loadHandoffConfig(json), options);
    assert.deepEqual(
      runHandoffSeeds(options).rows.map((row) => row.config),
      ['mine', 'mine'],
    );
  });

  it('names an unknown or misplaced field', () => {
    const cases: [unknown, string][] = [
      [{ seedz: 1 }, '(root)'],
      [{ tuner: { maximum: 3 } }, 'tuner'],
      [{ configs: [{ name: 'x', rate: 1 }] }, 'configs[0]'],
      [{ watermarks: 0.8 }, 'watermarks'],
      [[], '(root)'],
    ];
    for (const [data, option] of cases)
      assert.throws(
        () => handoffConfig(data),
        (error: unknown) => error instanceof StudyOptionError && error.option === option,
        option,
      );
  });
});
