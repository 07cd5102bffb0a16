import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryLimitStore } from '../../src/limits/memory-limit-store.js';
import { limiterOver, type LimitStore, type RateRequest } from '../../src/limits/rate-limiter.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { startOpenAIStub } from '../../src/testing/openai-stub-server.js';

// `runMission({ rateLimiter })` reaches every model role a mission file names: the proposer, the judge
// and a score check each wait for the limiter before every call.
describe('runMission with a rate limiter', () => {
  it('holds the calls of the model proposer, judge and score check built from the mission', async () => {
    const stub = await startOpenAIStub({
      respond: (body) => {
        const text = JSON.stringify(body);
        if (text.includes('You are the judge'))
          return JSON.stringify({ transition: 'accept', reason: 'model_accepts', cites: [], detail: 'done' });
        if (text.includes('strict reviewer')) return JSON.stringify({ score: 0.9, findings: [] });
        return JSON.stringify({ files: {}, value: 1 });
      },
    });
    const taken: RateRequest[] = [];
    const inner = new MemoryLimitStore();
    const recording: LimitStore = {
      take: async (request) => {
        taken.push(request);
        return inner.take(request);
      },
      settle: (request, used) => inner.settle(request, used),
    };
    const model = (name: string): { baseURL: string; model: string } => ({ baseURL: `${stub.baseURL}/`, model: name });
    process.env.REDLINE_TEST_ROLES_KEY = 'test-key';
    try {
      const mission = defineMission({
        id: 'limited-roles',
        goal: 'Set the value to 1',
        proposer: { kind: 'model', ...model('stub-proposer'), apiKeyEnv: 'REDLINE_TEST_ROLES_KEY' },
        judge: { kind: 'model', ...model('stub-judge'), apiKeyEnv: 'REDLINE_TEST_ROLES_KEY' },
        checks: [
          {
            name: 'quality',
            kind: 'score',
            pass: 0.5,
            model: { ...model('stub-scorer'), apiKeyEnv: 'REDLINE_TEST_ROLES_KEY', rubric: 'Sets the value.' },
          },
        ],
      });
      const result = await runMission({ mission, rateLimiter: limiterOver(recording) });
      assert.deepEqual([result.outcome, result.stopReason], ['complete', 'model_accepts']);
      assert.equal(taken.length, stub.requests.length, 'one take per call the endpoint saw');
      assert.deepEqual(new Set(taken.map((request) => request.endpoint)), new Set([stub.baseURL]));
      assert.deepEqual(new Set(taken.map((request) => request.model)), new Set(['stub-proposer', 'stub-judge', 'stub-scorer']));
    } finally {
      delete process.env.REDLINE_TEST_ROLES_KEY;
      await stub.close();
    }
  });
});
