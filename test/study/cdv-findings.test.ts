import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { runStopRulesStudy, type StopRulesStudy } from '../../src/study/index.js';

// The published findings on CDV's adaptive rule, checked on the default study (without the calibration
// sweep, which no strategy reads), as docs/stop-rules.md reports them.
describe("CDV's published findings on the default study", () => {
  let study: StopRulesStudy;
  before(async () => {
    study = await runStopRulesStudy({ confidences: [] });
  });
  const row = (strategy: string, sigma: number) => {
    const found = study.results.find((result) => result.strategy === strategy && result.sigma === sigma);
    assert.ok(found, `${strategy} at σ ${sigma}`);
    return found;
  };
  const cold = (warmup: 'rule' | 'whole', size: number) => {
    const found = study.adaptiveCdvColdStart.find((point) => point.warmup === warmup && point.warmupTasks === size);
    assert.ok(found, `${warmup} ${size}`);
    return found;
  };

  it('adaptive-cdv ties threshold within its 1 sd at every σ, where redline adaptive trails by more than 1 sd at σ 0.15 and 0.2', () => {
    for (const sigma of study.config.sigmas) {
      const cdv = row('adaptive-cdv', sigma).trueReach;
      const threshold = row('threshold', sigma).trueReach;
      assert.ok(Math.abs(cdv.mean - threshold.mean) <= cdv.sd, `σ ${sigma}: ${cdv.mean} ± ${cdv.sd} vs ${threshold.mean}`);
    }
    for (const sigma of [0.15, 0.2]) {
      const adaptive = row('adaptive', sigma).trueReach;
      const threshold = row('threshold', sigma).trueReach;
      assert.ok(threshold.mean - adaptive.mean > Math.max(adaptive.sd, threshold.sd), `σ ${sigma}`);
    }
  });

  it('cold, adaptive-cdv uses fewer attempts than threshold and reaches less; warmed on 30 whole tasks it has caught up', () => {
    const threshold = row('threshold', 0.1);
    const start = cold('whole', 0);
    assert.ok(threshold.meanSteps.mean - start.meanSteps.mean > 0.3, `${start.meanSteps.mean} attempts`);
    assert.ok(threshold.trueReach.mean - start.trueReach.mean > 5, `${start.trueReach.mean}% true reach`);
    const caughtUp = cold('whole', 30);
    assert.ok(Math.abs(caughtUp.trueReach.mean - threshold.trueReach.mean) <= threshold.trueReach.sd, `${caughtUp.trueReach.mean}%`);
    assert.ok(Math.abs(caughtUp.meanSteps.mean - threshold.meanSteps.mean) < 0.1, `${caughtUp.meanSteps.mean} attempts`);
  });

  it('warmed by running on its warm-up tasks, adaptive-cdv has not caught up at 30 tasks', () => {
    assert.ok(cold('whole', 30).trueReach.mean - cold('rule', 30).trueReach.mean > 2);
    assert.ok(cold('rule', 30).trueReach.sd > 2 * cold('whole', 30).trueReach.sd, 'some seeds lock into giving up early');
  });

  it('cold, 2 of seeds 1–10 lock into giving up early, as the published 2.79 attempts and 50% did; the other 8 stay near threshold', async () => {
    // The published cold start is one locked-in seed's, not the mean: no single seed stands for it. With the seed's
    // plateau delta 0.01, seeds 2 and 5 of 1–10 lock in (2.18–2.43 attempts, 52–54% true reach); with 0.02, seed 9
    // did too (3 of 10). Each seed is a study of its own; together they are the default study's cold start.
    const seeds = [];
    for (let seed = 1; seed <= 10; seed += 1) {
      const one = await runStopRulesStudy({ seed, seeds: 1, sigmas: [0.1], warmup: [0], confidences: [] });
      const [point] = one.adaptiveCdvColdStart;
      const threshold = one.results.find((result) => result.strategy === 'threshold');
      assert.ok(point !== undefined && threshold !== undefined);
      seeds.push({
        seed,
        attempts: point.meanSteps.mean,
        reach: point.trueReach.mean,
        behind: threshold.trueReach.mean - point.trueReach.mean,
      });
    }
    const locked = seeds.filter((item) => item.attempts < 2.5);
    assert.deepEqual(
      locked.map((item) => item.seed),
      [2, 5],
      JSON.stringify(seeds),
    );
    for (const item of locked)
      assert.ok(item.attempts > 2.1 && item.reach > 50 && item.reach < 56 && item.behind > 15, JSON.stringify(item));
    for (const item of seeds.filter((one) => !locked.includes(one)))
      assert.ok(item.attempts > 3.1 && item.reach > 63 && item.behind < 8, JSON.stringify(item));
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    assert.ok(Math.abs(mean(seeds.map((item) => item.attempts)) - cold('rule', 0).meanSteps.mean) < 0.006);
    assert.ok(Math.abs(mean(seeds.map((item) => item.reach)) - cold('rule', 0).trueReach.mean) < 0.06);
  });
});
