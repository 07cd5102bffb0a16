import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modelScore } from '../../src/ai-sdk/model-score.js';
import type { CheckContext } from '../../src/core/check.js';
import { scoreCheck } from '../../src/checks/score-check.js';
import { EMPTY_CANDIDATE } from '../../src/core/candidate.js';
import { startOpenAIStub } from '../../src/testing/openai-stub-server.js';
import { promptOf } from './proposal-request.js';

const context: CheckContext = {
  candidate: {
    ...EMPTY_CANDIDATE,
    files: { 'README.md': '# add\nAdds two numbers.' },
    value: { summary: 'docs' },
    footprint: ['README.md'],
  },
  goal: 'Document add()',
  attempt: 1,
  signal: new AbortController().signal,
};
const rubric = 'The README shows a runnable example.';
const verdict = { score: 0.4, findings: [{ reasonCode: 'rubric.no_example', message: 'README.md has no example' }] };

describe('modelScore', () => {
  it('returns the score and the findings as notes, asked about the candidate against goal and rubric', async () => {
    const stub = await startOpenAIStub({ replies: [JSON.stringify(verdict)] });
    try {
      const score = await modelScore({ baseURL: stub.baseURL, model: 'stub-judge', rubric, maxRetries: 0 });
      assert.deepEqual(await score(context), { score: 0.4, notes: verdict.findings });
      const prompt = promptOf(stub.requests[0]);
      for (const expected of ['Document add()', rubric, 'Adds two numbers.', '"summary": "docs"'])
        assert.ok(prompt.includes(expected), `the prompt names ${expected}`);
      assert.equal((stub.requests[0] as { response_format: { type: string } }).response_format.type, 'json_schema');
    } finally {
      await stub.close();
    }
  });

  it('makes a failing score finding through scoreCheck, and an error finding for a score out of range', async () => {
    const stub = await startOpenAIStub({ replies: [JSON.stringify(verdict), '{"score":1.5,"findings":[]}'] });
    try {
      const check = scoreCheck({
        name: 'readme',
        score: await modelScore({ baseURL: stub.baseURL, model: 'stub-judge', rubric, maxRetries: 0 }),
      });
      const [low] = await check.run(context);
      assert.equal(low?.status, 'fail');
      assert.deepEqual(low?.reasonCodes, ['score.below_pass', 'rubric.no_example']);
      const [bad] = await check.run(context);
      assert.equal(bad?.status, 'error');
      assert.deepEqual(bad?.reasonCodes, ['judge.failed']);
    } finally {
      await stub.close();
    }
  });

  it('gives up after timeoutMs', async () => {
    const stub = await startOpenAIStub({ replies: [{ content: JSON.stringify(verdict), delayMs: 10_000 }] });
    try {
      const score = await modelScore({ baseURL: stub.baseURL, model: 'stub-judge', rubric, timeoutMs: 50, maxRetries: 0 });
      await assert.rejects(async () => score(context));
    } finally {
      await stub.close();
    }
  });

  it('refuses an apiKeyEnv that names an unset variable', async () => {
    await assert.rejects(
      modelScore({ baseURL: 'http://127.0.0.1:9/v1', model: 'stub-judge', rubric, apiKeyEnv: 'REDLINE_TEST_UNSET_KEY' }),
      {
        name: 'TypeError',
        message: 'Expected an API key in the environment variable REDLINE_TEST_UNSET_KEY, got none',
      },
    );
  });
});
