import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adaptiveCdvStrategy, CDV_PLATEAU } from '../../src/study/adaptive-cdv-strategy.js';
import { buildCell } from '../../src/study/cell.js';
import { runStopRulesStudy, StudyOptionError, type StopRulesStudy, type StopRulesStudyOptions } from '../../src/study/index.js';
import { generateTasks } from '../../src/study/task-model.js';
import { scored } from '../guards/history.js';

const OPTIONS: StopRulesStudyOptions = { tasksPerType: 60, seeds: 3, sigmas: [0.05, 0.1], warmup: [0, 2, 30, 90], confidences: [] };

const row = (study: StopRulesStudy, strategy: string, sigma: number) => {
  const found = study.results.find((result) => result.strategy === strategy && result.sigma === sigma);
  assert.ok(found, `${strategy} at σ ${sigma}`);
  return found;
};
const cold = (study: StopRulesStudy, warmup: 'rule' | 'whole', size: number) => {
  const found = study.adaptiveCdvColdStart.find((point) => point.warmup === warmup && point.warmupTasks === size);
  assert.ok(found, `${warmup} ${size}`);
  return found;
};
const metrics = ({ meanSteps, trueReach }: { meanSteps: unknown; trueReach: unknown }) => [meanSteps, trueReach];

describe('adaptive-cdv in the stop-rules study', () => {
  let study: StopRulesStudy;
  before(async () => {
    study = await runStopRulesStudy(OPTIONS);
  });

  it('reports adaptive-cdv beside adaptive, and its cold start both ways of warming it', () => {
    const names = study.results.filter((result) => result.sigma === 0.1).map((result) => result.strategy);
    assert.equal(names.indexOf('adaptive-cdv'), names.indexOf('adaptive-cold') + 1);
    assert.deepEqual(
      study.adaptiveCdvColdStart.map((point) => `${point.warmup} ${point.warmupTasks} ${point.sigma}`),
      ['rule 0 0.1', 'rule 2 0.1', 'rule 30 0.1', 'rule 90 0.1', 'whole 0 0.1', 'whole 2 0.1', 'whole 30 0.1', 'whole 90 0.1'],
    );
    assert.deepEqual(Object.keys(study.adaptiveCdvColdStart[0] ?? {}), ['warmupTasks', 'sigma', 'meanSteps', 'trueReach', 'warmup']);
  });

  it("gives up on a plateau of the seed's delta, 0.01 over the last 3 scores", () => {
    assert.deepEqual({ ...CDV_PLATEAU }, { delta: 0.01, n: 3 });
    const cell = buildCell({ tasks: generateTasks({ tasksPerType: 4, cap: 8, seed: 1 }), trainTasks: 6, sigma: 0.1 });
    const [, , plateauGuard] = adaptiveCdvStrategy({ bar: 0.8, cap: 8, cell, warmup: 0 }).policy;
    assert.equal(plateauGuard?.evaluate(scored(0.6, 0.615, 0.61)), undefined, 'within 0.02, not within 0.01');
    assert.equal(plateauGuard?.evaluate(scored(0.6, 0.605, 0.61))?.guard, 'plateau(0.01, 3)');
  });

  it('warmed by running on the whole training half is the adaptive-cdv strategy', () => {
    assert.deepEqual(metrics(cold(study, 'rule', 90)), metrics(row(study, 'adaptive-cdv', 0.1)));
  });

  it('cold, it starts as threshold and learns from the runs it finishes: fewer attempts than threshold', () => {
    // With no warm-up both ways are the same rule on the same test runs.
    assert.deepEqual(metrics(cold(study, 'rule', 0)), metrics(cold(study, 'whole', 0)));
    assert.ok(cold(study, 'rule', 0).meanSteps.mean < row(study, 'threshold', 0.1).meanSteps.mean);
  });

  it('is the same whatever else the study runs (other σ, other warm-up sizes)', async () => {
    const a = await runStopRulesStudy({ ...OPTIONS, sigmas: [0.1], warmup: [0] });
    assert.deepEqual(metrics(cold(a, 'rule', 0)), metrics(cold(study, 'rule', 0)));
    assert.deepEqual(metrics(row(a, 'adaptive-cdv', 0.1)), metrics(row(study, 'adaptive-cdv', 0.1)), 'independent of the other σ');
  });
});

describe('stop-rules study policies', () => {
  const policies = [
    { name: 'my-confirm-2', guards: [{ confirm: { k: 2, bar: 0.8 } }] },
    { name: 'my-adaptive', guards: [{ adaptive: { bar: 0.8 } }] },
    { name: 'bayes-first', guards: [{ noiseAware: { bar: 0.8, confidence: 0.9, noise: 0.1 } }, { confirm: { k: 2, bar: 0.8 } }] },
    { name: 'confirm-first', guards: [{ confirm: { k: 2, bar: 0.8 } }, { noiseAware: { bar: 0.8, confidence: 0.9, noise: 0.1 } }] },
  ];
  const options: StopRulesStudyOptions = { ...OPTIONS, sigmas: [0.1, 0.2], warmup: [0], policies };

  it('runs each guard stack as an extra strategy, after the built-in ones, leaving those unchanged', async () => {
    const [plain, withPolicies] = [await runStopRulesStudy({ ...options, policies: [] }), await runStopRulesStudy(options)];
    const builtIn = withPolicies.results.filter((result) => !policies.some((policy) => policy.name === result.strategy));
    assert.deepEqual(builtIn, plain.results);
    assert.deepEqual(
      withPolicies.results
        .filter((result) => result.sigma === 0.2)
        .map((result) => result.strategy)
        .slice(-4),
      policies.map((policy) => policy.name),
    );
    assert.deepEqual(withPolicies.config.policies, [
      policies[0],
      { name: 'my-adaptive', guards: [{ adaptive: { bar: 0.8, level: 0.3, minRuns: 3 } }] },
      policies[2],
      policies[3],
    ]);
    for (const sigma of options.sigmas ?? []) {
      const same = (policy: string, strategy: string) => {
        const { strategy: _a, ...mine } = row(withPolicies, policy, sigma);
        const { strategy: _b, ...theirs } = row(withPolicies, strategy, sigma);
        assert.deepEqual(mine, theirs, `${policy} is ${strategy} at σ ${sigma}`);
      };
      same('my-confirm-2', 'confirm-2');
      same('my-adaptive', 'adaptive');
      // First stop wins: the order of the stack decides which verdict a run records, not where it stops.
      same('bayes-first', 'confirm-first');
      assert.ok(row(withPolicies, 'bayes-first', sigma).meanSteps.mean <= row(withPolicies, 'confirm-2', sigma).meanSteps.mean);
    }
  });

  it('rejects a bad policy, naming what is wrong', async () => {
    const rejects = async (bad: unknown, got: RegExp) =>
      assert.rejects(runStopRulesStudy({ ...options, policies: bad as StopRulesStudyOptions['policies'] }), (error: unknown) => {
        assert.ok(error instanceof StudyOptionError);
        assert.equal(error.option, 'policies');
        assert.match(error.got, got);
        return true;
      });
    await rejects(
      [{ name: 'x', guards: [{ confrm: { k: 2, bar: 0.8 } }] }],
      /^policies\[0\]\.guards\[0\]: Unknown guard "confrm"; expected one of threshold, /,
    );
    await rejects([{ name: 'x', guards: [{ confirm: { k: 0, bar: 0.8 } }] }], /^policies\[0\]\.guards\[0\]\.confirm\.k: /);
    await rejects([{ name: '', guards: [] }], /^policies\[0\]\.name: /);
    await rejects([{ name: 'x', guards: [], extra: 1 }], /^policies\[0\]: .*"extra"/);
    await rejects([{ name: 'threshold', guards: [] }], /^policies\[0\]\.name "threshold"$/);
    await rejects([policies[0], policies[0]], /^policies\[1\]\.name "my-confirm-2"$/);
    await rejects('confirm', /^string$/);
  });
});
