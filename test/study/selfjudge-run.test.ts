import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modelProposer } from '../../src/ai-sdk/model-proposer.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { modelAsk, temperatureZeroModel } from '../../src/ai-sdk/model-ask.js';
import { runSelfJudgeStudy, type SelfJudgeStudyOptions } from '../../src/study/selfjudge/run-selfjudge-study.js';
import { PUBLISHED_TASKS, type CodeTask } from '../../src/study/selfjudge/tasks.js';
import { startOpenAIStub } from '../../src/testing/openai-stub-server.js';
import { readyPython3 } from '../helpers/python.js';
import { correctButSaysNo, degrader, scriptedModel, yesToWrong, type Behaviour } from './selfjudge-scripted-models.js';

const skip = readyPython3();

async function study(behaviour: Behaviour, options: Partial<SelfJudgeStudyOptions> = {}) {
  const stub = await startOpenAIStub({ respond: scriptedModel(behaviour) });
  try {
    const languageModel = temperatureZeroModel({ baseURL: stub.baseURL, model: 'scripted' });
    const ledger = new MemoryLedger();
    const result = await runSelfJudgeStudy({
      proposer: modelProposer({ languageModel }),
      ask: modelAsk(languageModel),
      ledger,
      _internal: { generateId: () => 't1' },
      ...options,
    });
    return { result, ledger, requests: stub.requests };
  } finally {
    await stub.close();
  }
}

const cell = (result: Awaited<ReturnType<typeof study>>['result'], task: string, condition: 'redline' | 'selfjudge') =>
  result.cells.find((item) => item.task === task && item.condition === condition)!;

describe('runSelfJudgeStudy against scripted models', { skip }, () => {
  it('a model that writes correct code but answers NO: B converges by luck, with a false negative in every trial', async () => {
    const { result, requests } = await study(correctButSaysNo, { maxAttempts: 3, trials: 1 });
    const a = cell(result, 'all', 'redline');
    const b = cell(result, 'all', 'selfjudge');
    assert.deepEqual(a.converged, { count: 3, n: 3, rate: 1, low: 0.4385, high: 1 });
    assert.deepEqual(a.attempts, [1, 1, 1]);
    assert.equal(a.falseNegatives.count, 0);
    assert.deepEqual(b.falseNegatives, { count: 3, n: 3, rate: 1, low: 0.4385, high: 1 });
    assert.deepEqual(b.attempts, [3, 3, 3]);
    assert.equal(b.falsePositives.count, 0);
    assert.equal(b.degradations.count, 0);
    assert.deepEqual(cell(result, 'is_even', 'selfjudge').falseNegatives, { count: 1, n: 1, rate: 1, low: 0.2065, high: 1 });
    // Every trial is a sealed run; B never said yes, so its runs end on the attempt cap.
    assert.ok(result.trials.filter((trial) => trial.condition === 'selfjudge').every((trial) => !trial.saidYes && trial.converged));
    // Temperature 0 on every call, proposer and judge alike.
    assert.ok(requests.every((body) => (body as { temperature?: number }).temperature === 0));
  });

  it('a model that degrades correct code: B counts a degradation and ends on failing code', async () => {
    const { result } = await study(degrader, {
      maxAttempts: 3,
      trials: 2,
      tasks: [{ kind: 'code', task: PUBLISHED_TASKS[0] as CodeTask }],
    });
    const b = cell(result, 'all', 'selfjudge');
    assert.deepEqual(b.degradations, { count: 2, n: 2, rate: 1, low: 0.3424, high: 1 });
    assert.deepEqual(b.converged, { count: 0, n: 2, rate: 0, low: 0, high: 0.6576 });
    assert.equal(b.falseNegatives.count, 2);
    assert.deepEqual(result.trials.find((trial) => trial.condition === 'selfjudge')!.truth, ['pass', 'fail', 'fail']);
    assert.equal(cell(result, 'all', 'redline').converged.count, 2);
    assert.equal(cell(result, 'all', 'redline').degradations.count, 0);
  });

  it('a model that answers YES to wrong code: every B trial is a false positive after one attempt', async () => {
    // One task, two trials: the first case runs the whole published set; more tasks here would add runs, not coverage.
    const { result } = await study(yesToWrong, {
      maxAttempts: 2,
      trials: 2,
      tasks: [{ kind: 'code', task: PUBLISHED_TASKS[0] as CodeTask }],
    });
    const b = cell(result, 'all', 'selfjudge');
    assert.deepEqual(b.falsePositives, { count: 2, n: 2, rate: 1, low: 0.3424, high: 1 });
    assert.deepEqual(b.attempts, [1, 1]);
    const a = cell(result, 'all', 'redline');
    assert.equal(a.falsePositives.count, 0);
    assert.equal(a.converged.count, 0);
    assert.deepEqual(a.attempts, [2, 2]);
  });
});
