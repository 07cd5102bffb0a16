import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modelJudge } from '../../src/ai-sdk/model-judge.js';
import type { Evidence } from '../../src/judge/judge.js';
import { validateDecision } from '../../src/judge/validate-decision.js';
import { EMPTY_CANDIDATE } from '../../src/core/candidate.js';
import { startOpenAIStub } from '../../src/testing/openai-stub-server.js';
import { failingTest, promptOf, proposalRequest } from './proposal-request.js';

const evidence: Evidence = {
  mission: proposalRequest({}).mission,
  attempt: 2,
  candidate: { ...EMPTY_CANDIDATE, files: { 'src/add.js': 'x' }, footprint: ['src/add.js'] },
  findings: [failingTest],
  verdict: { guard: 'budget(attempts)', reason: 'budget_attempts', detail: '2 of 2 attempts used', outcome: 'failed_with_evidence' },
  acceptance: { acceptable: false, hasDemand: true, problems: ['required check tests did not pass'] },
};

describe('modelJudge', () => {
  it('returns the scripted decision, asked from the complete evidence', async () => {
    const decision = {
      transition: 'fail',
      reason: 'budget_attempts',
      cites: ['tests#test.failed'],
      detail: 'out of attempts with a failing test',
    };
    const stub = await startOpenAIStub({ replies: [JSON.stringify(decision)] });
    try {
      const judge = modelJudge({ baseURL: stub.baseURL, model: 'stub-judge', maxRetries: 0 });
      assert.equal(judge.name, 'model:stub-judge');
      const decided = await judge.decide(evidence, { signal: new AbortController().signal });
      assert.deepEqual(decided, decision);
      assert.deepEqual(validateDecision(decided, evidence), { decision });

      const body = stub.requests[0] as { response_format: { json_schema: { schema: { properties: { transition: { enum: string[] } } } } } };
      assert.deepEqual(body.response_format.json_schema.schema.properties.transition.enum, ['retry', 'accept', 'noop', 'block', 'fail']);
      const prompt = promptOf(body);
      for (const expected of [
        '# Attempt 2',
        '- tests [fail] test.failed: expected add(2, 2) to be 4, got 5',
        'Guard budget(attempts) stopped with outcome "failed_with_evidence"',
        '- required check tests did not pass',
        'src/add.js',
      ]) {
        assert.ok(prompt.includes(expected), `the prompt names ${expected}`);
      }
    } finally {
      await stub.close();
    }
  });

  it('rejects when the model answers off the schema, so the runtime records a judge failure', async () => {
    const stub = await startOpenAIStub({ replies: ['{"transition":"merge","reason":"x","cites":[],"detail":""}'] });
    try {
      const judge = modelJudge({ baseURL: stub.baseURL, model: 'stub-judge', maxRetries: 0 });
      await assert.rejects(async () => judge.decide(evidence, { signal: new AbortController().signal }), {
        name: 'AI_NoObjectGeneratedError',
      });
    } finally {
      await stub.close();
    }
  });
});
