import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateText, streamText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { modelProposer } from '../../src/ai-sdk/model-proposer.js';
import { openAICompatibleModel } from '../../src/ai-sdk/openai-compatible.js';
import { rateLimitedModel } from '../../src/ai-sdk/rate-limited-model.js';
import { MemoryLimitStore } from '../../src/limits/memory-limit-store.js';
import { rateLimit } from '../../src/limits/rate-limit.js';
import { limiterOver, type LimitStore, type RateRequest } from '../../src/limits/rate-limiter.js';
import { startOpenAIStub, type OpenAIStub } from '../../src/testing/openai-stub-server.js';
import { proposalRequest } from './proposal-request.js';

/** A store that records what the limiter took and settled, over a real in-memory store. */
function recording(inner: LimitStore): LimitStore & { taken: RateRequest[]; settled: [RateRequest, number][] } {
  const taken: RateRequest[] = [];
  const settled: [RateRequest, number][] = [];
  return {
    taken,
    settled,
    async take(request) {
      const turn = await inner.take(request);
      if ('taken' in turn) taken.push(request);
      return turn;
    },
    async settle(request, used) {
      settled.push([request, used]);
      await inner.settle(request, used);
    },
  };
}

describe('rateLimitedModel', () => {
  let stub: OpenAIStub;
  before(async () => {
    stub = await startOpenAIStub({
      replies: [{ status: 500, content: 'overloaded' }],
      respond: () => ({ content: '{"files":{"a.txt":"1"}}', usage: { prompt_tokens: 30, completion_tokens: 10 } }),
    });
  });
  after(() => stub.close());

  it('admits every HTTP call (retries too) under the endpoint key, and settles with the tokens the provider reported', async () => {
    const store = recording(new MemoryLimitStore());
    // A trailing slash on the base URL names the same endpoint as without.
    const proposer = modelProposer({
      baseURL: `${stub.baseURL}/`,
      model: 'stub-model',
      maxOutputTokens: 200,
      maxRetries: 1,
      rateLimiter: limiterOver(store),
    });
    const proposal = await proposer.propose(proposalRequest({}), { signal: new AbortController().signal });
    assert.deepEqual(proposal.files, { 'a.txt': '1' });
    assert.equal(stub.requests.length, 2, 'the 500 and its retry');
    assert.deepEqual(
      store.taken.map(({ endpoint, model }) => [endpoint, model]),
      [
        [stub.baseURL, 'stub-model'],
        [stub.baseURL, 'stub-model'],
      ],
    );
    const [reserved] = store.taken;
    const prompt = (stub.requests[1] as { messages: unknown[] }).messages;
    // About 4 characters a token for the prompt, plus the output cap.
    assert.ok(
      reserved!.tokens > 200 && Math.abs(reserved!.tokens - 200 - JSON.stringify(prompt).length / 4) < 50,
      `reserved ${reserved!.tokens}`,
    );
    assert.deepEqual(
      store.settled.map(([, used]) => used),
      [reserved!.tokens, 40],
      'the failed call keeps its reservation; the answered one settles with 30 + 10',
    );
  });

  it('holds a call until its endpoint has room, and a run that stops takes it off the wait', async () => {
    const store = new MemoryLimitStore([rateLimit({ endpoint: stub.baseURL, requestsPerMinute: 1 })]);
    const model = rateLimitedModel(openAICompatibleModel({ baseURL: stub.baseURL, model: 'stub-model' }), limiterOver(store), stub.baseURL);
    const before = stub.requests.length;
    await generateText({ model, prompt: 'first', maxRetries: 0 });
    const stop = new AbortController();
    const second = generateText({ model, prompt: 'second', maxRetries: 0, abortSignal: stop.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop.abort(new Error('the run stopped'));
    await assert.rejects(second, /the run stopped/);
    assert.equal(stub.requests.length, before + 1, 'the held call never reached the endpoint');
  });

  it('settles a streamed call with the usage of its finish part', async () => {
    const store = recording(new MemoryLimitStore());
    const model = rateLimitedModel(
      new MockLanguageModelV3({
        doStream: async () => ({
          stream: new ReadableStream({
            start(controller) {
              controller.enqueue({ type: 'text-start', id: '1' });
              controller.enqueue({ type: 'text-delta', id: '1', delta: 'hello' });
              controller.enqueue({ type: 'text-end', id: '1' });
              controller.enqueue({
                type: 'finish',
                finishReason: { unified: 'stop', raw: 'stop' },
                usage: {
                  inputTokens: { total: 7, noCache: 7, cacheRead: undefined, cacheWrite: undefined },
                  outputTokens: { total: 5, text: 5, reasoning: undefined },
                },
              });
              controller.close();
            },
          }),
        }),
      }),
      limiterOver(store),
      'mock-provider',
    );
    const result = streamText({ model, prompt: 'hi' });
    assert.equal(await result.text, 'hello');
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(
      store.settled.map(([request, used]) => [request.endpoint, used]),
      [['mock-provider', 12]],
    );
  });

  it('refuses a model given by id: only a model object can be held', () => {
    assert.throws(() => rateLimitedModel('openai/gpt-4.1', limiterOver(new MemoryLimitStore()), 'gateway'), {
      name: 'TypeError',
      message: /Expected a LanguageModelV3 object to rate-limit, got the model id "openai\/gpt-4.1"/,
    });
  });
});
