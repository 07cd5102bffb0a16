import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { ModelProtocol } from '../../src/core/model-call.js';
import { MemoryLimitStore } from '../../src/limits/memory-limit-store.js';
import { rateLimit } from '../../src/limits/rate-limit.js';
import { limiterOver } from '../../src/limits/rate-limiter.js';
import { startMeter, type Meter, type MeterOptions } from '../../src/metering/meter.js';
import { startModelStub, type ModelStub, type StubTurn } from './model-stub.js';

// Real HTTP throughout: an agent's request (fetch) → the meter → a stub endpoint speaking each protocol.

const SECRET = 'sk-test-0123456789abcdef';
const stubs: ModelStub[] = [];
const meters: Meter[] = [];
after(async () => {
  await Promise.all([...meters.map((meter) => meter.close()), ...stubs.map((stub) => stub.close())]);
});

async function setUp(
  turn: (index: number) => StubTurn,
  options: Omit<MeterOptions, 'upstream'> = {},
  gzip = false,
): Promise<{ stub: ModelStub; meter: Meter }> {
  const stub = await startModelStub({ turn, gzip });
  stubs.push(stub);
  const meter = await startMeter({ upstream: stub.url, ...options });
  meters.push(meter);
  return { stub, meter };
}

const PATHS: Record<Exclude<ModelProtocol, 'other'>, string> = {
  responses: '/v1/responses',
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
};

/** One call as an agent of the protocol makes it, with its key in the protocol's header. */
async function call(
  meter: Meter,
  protocol: Exclude<ModelProtocol, 'other'>,
  { model = 'gpt-4o', stream = false } = {},
): Promise<{ status: number; text: string }> {
  const auth = protocol === 'messages' ? { 'x-api-key': SECRET, 'anthropic-version': '2023-06-01' } : { authorization: `Bearer ${SECRET}` };
  const response = await fetch(`${meter.url}${PATHS[protocol]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ model, stream, max_tokens: 256, messages: [{ role: 'user', content: 'fix the bug' }] }),
  });
  return { status: response.status, text: await response.text() };
}

describe('the meter', () => {
  for (const protocol of ['responses', 'chat', 'messages'] as const)
    for (const stream of [false, true])
      it(`counts the usage of ${protocol} answers, ${stream ? 'streamed' : 'whole'}, and passes them through with their tool call`, async () => {
        const { stub, meter } = await setUp(() => ({ input: 1200, output: 300, cached: 200 }));
        const answer = await call(meter, protocol, { stream });
        assert.equal(answer.status, 200);
        assert.match(answer.text, protocol === 'messages' ? /"tool_use"/ : /"call_0"/);
        if (stream) assert.match(answer.text, protocol === 'chat' ? /^data: \[DONE\]$/m : /^event: /m);
        const [seen] = meter.account().calls;
        assert.deepEqual(
          { ...seen, atMs: 0, durationMs: 0 },
          {
            protocol,
            model: 'gpt-4o',
            stream,
            atMs: 0,
            durationMs: 0,
            status: 200,
            bytesUp: seen?.bytesUp,
            bytesDown: Buffer.byteLength(answer.text),
            inputTokens: 1200,
            cachedInputTokens: 200,
            outputTokens: 300,
            // gpt-4o: $2.50 per million prompt tokens, $1.25 cached, $10 output.
            costUsd: (1000 * 2.5 + 200 * 1.25 + 300 * 10) / 1e6,
          },
        );
        assert.deepEqual(meter.spent(), { inputTokens: 1200, outputTokens: 300, costUsd: (1000 * 2.5 + 200 * 1.25 + 300 * 10) / 1e6 });
        // A streamed chat completion reports usage only when asked: the meter asks for the agent.
        if (protocol === 'chat' && stream) assert.deepEqual(stub.requests[0]?.body.stream_options, { include_usage: true });
      });

  it("counts Anthropic's cache reads and writes as prompt tokens, each at its own price", async () => {
    const { meter } = await setUp(() => ({ input: 10_000, output: 500, cached: 6000, cacheWrite: 3000 }));
    await call(meter, 'messages', { model: 'claude-sonnet-4-20250514', stream: true });
    const [seen] = meter.account().calls;
    assert.deepEqual([seen?.inputTokens, seen?.cachedInputTokens, seen?.cacheWriteTokens, seen?.outputTokens], [10_000, 6000, 3000, 500]);
    // claude-sonnet-4: $3 input, $0.30 cache reads, $3.75 cache writes, $15 output per million.
    assert.equal(seen?.costUsd, (1000 * 3 + 6000 * 0.3 + 3000 * 3.75 + 500 * 15) / 1e6);
  });

  it("prices from the caller's table: its entries win, dated ids take the longest key that names them", async () => {
    const { meter } = await setUp(() => ({ input: 1_000_000, output: 1_000_000 }), {
      prices: { 'gpt-4o': { input: 1, output: 2 }, 'gpt-4o-mini': { input: 0.5, output: 0.5 } },
    });
    await call(meter, 'chat', { model: 'gpt-4o-2024-08-06' });
    await call(meter, 'chat', { model: 'gpt-4o-mini-2024-07-18' });
    await call(meter, 'chat', { model: 'openai/gpt-4o' });
    assert.deepEqual(
      meter.account().calls.map((seen) => seen.costUsd),
      [3, 1, 3],
    );
  });

  it('reads the usage of an answer the endpoint compressed although asked not to', async () => {
    const { stub, meter } = await setUp(() => ({ input: 100, output: 10 }), {}, true);
    const answer = await call(meter, 'responses');
    assert.equal(answer.status, 200);
    assert.equal(stub.requests[0]?.headers['accept-encoding'], 'identity');
    assert.deepEqual(meter.spent(), { inputTokens: 100, outputTokens: 10, costUsd: (100 * 2.5 + 10 * 10) / 1e6 });
  });

  it('passes keys through untouched and keeps none of them', async () => {
    const { stub, meter } = await setUp(() => ({ input: 10, output: 1 }));
    await call(meter, 'responses', { stream: true });
    await call(meter, 'messages', { stream: true });
    assert.equal(stub.requests[0]?.headers.authorization, `Bearer ${SECRET}`);
    assert.equal(stub.requests[1]?.headers['x-api-key'], SECRET);
    assert.doesNotMatch(JSON.stringify(meter.account()), new RegExp(SECRET.slice(3)));
  });

  describe('budgets', () => {
    it('forwards calls until the spend reaches the cost budget, then refuses the next in each protocol and ends the agent', async () => {
      // Each call: 2,000 in and 500 out tokens of gpt-4o, $0.01; the budget is spent by the fourth.
      const { stub, meter } = await setUp(() => ({ input: 2000, output: 500 }), { budget: { costUsd: 0.035 } });
      for (let index = 0; index < 4; index += 1) assert.equal((await call(meter, 'responses', { stream: true })).status, 200);
      assert.equal(meter.signal.aborted, false, 'the call that crossed the budget was forwarded to its end');
      const refused = await call(meter, 'responses', { stream: true });
      assert.equal(refused.status, 429);
      const error = (JSON.parse(refused.text) as { error: { type: string; code: string; message: string } }).error;
      assert.deepEqual([error.type, error.code], ['insufficient_quota', 'insufficient_quota']);
      assert.match(error.message, /cost budget is spent \(\$0\.04 of the \$0\.035 left/);
      assert.equal(meter.signal.aborted, true);
      assert.equal(meter.signal.reason, 'budget_cost');
      const anthropic = await call(meter, 'messages');
      assert.equal(anthropic.status, 402);
      assert.equal((JSON.parse(anthropic.text) as { error: { type: string } }).error.type, 'billing_error');
      assert.equal(stub.requests.length, 4, 'no refused call reached the endpoint');
      const account = meter.account();
      assert.deepEqual(
        account.calls.map((seen) => seen.refused ?? seen.status),
        [200, 200, 200, 200, 'budget_cost', 'budget_cost'],
      );
      assert.equal(account.ended, 'budget_cost');
      assert.ok(Math.abs((account.spent.costUsd ?? 0) - 0.04) < 1e-12);
    });

    it('refuses once input plus output tokens reach the token budget', async () => {
      const { meter } = await setUp(() => ({ input: 700, output: 300 }), { budget: { tokens: 2000 } });
      assert.equal((await call(meter, 'chat', { stream: true })).status, 200);
      assert.equal((await call(meter, 'chat', { stream: true })).status, 200);
      const refused = await call(meter, 'chat');
      assert.equal(refused.status, 429);
      assert.match(refused.text, /token budget is spent \(2000 tokens of the 2000 left/);
      assert.equal(meter.signal.reason, 'budget_tokens');
    });

    it('refuses a model it has no price for under a cost budget, and counts it without cost otherwise', async () => {
      const { stub, meter } = await setUp(() => ({ input: 10, output: 1 }), { budget: { costUsd: 1 } });
      const refused = await call(meter, 'messages', { model: 'house-model-7' });
      assert.equal(refused.status, 400);
      assert.match(refused.text, /no price for the model \\"house-model-7\\"/);
      assert.equal(meter.signal.reason, 'no_price');
      assert.equal(stub.requests.length, 0);

      const counting = await setUp(() => ({ input: 10, output: 1 }));
      assert.equal((await call(counting.meter, 'messages', { model: 'house-model-7' })).status, 200);
      assert.deepEqual(counting.meter.spent(), { inputTokens: 10, outputTokens: 1 });
    });
  });

  it('holds model calls to the rate limits of its upstream and settles them with what they used', async () => {
    const stub = await startModelStub({ turn: () => ({ input: 40, output: 2 }) });
    stubs.push(stub);
    const store = new MemoryLimitStore([rateLimit({ endpoint: stub.url, requestsPerMinute: 60, burstSeconds: 1 })]);
    const asked = new Set<string>();
    const settled: number[] = [];
    const limiter = limiterOver({
      take: (request) => {
        asked.add(`${request.endpoint} ${request.model}`);
        return store.take(request);
      },
      settle: (request, used) => {
        settled.push(used);
        return store.settle(request, used);
      },
    });
    // The endpoint key drops the trailing slash, as `redline limits set` does.
    const meter = await startMeter({ upstream: `${stub.url}/`, rateLimiter: limiter });
    meters.push(meter);
    await call(meter, 'chat');
    await call(meter, 'chat');
    assert.deepEqual([...asked], [`${stub.url} gpt-4o`]);
    assert.deepEqual(settled, [42, 42]);
    // One request a second: the second call waited for its turn.
    assert.ok((meter.account().calls[1]?.waitedMs ?? 0) >= 500, JSON.stringify(meter.account().calls[1]));
  });

  it('answers 502 in the protocol’s shape when the endpoint cannot be reached', async () => {
    const stub = await startModelStub({ turn: () => ({ input: 1, output: 1 }) });
    await stub.close();
    const meter = await startMeter({ upstream: stub.url });
    meters.push(meter);
    const answer = await call(meter, 'messages');
    assert.equal(answer.status, 502);
    assert.match((JSON.parse(answer.text) as { error: { message: string } }).error.message, /could not reach the endpoint: ECONNREFUSED/);
    assert.equal(meter.account().calls[0]?.error, 'ECONNREFUSED');
  });

  it('refuses an upstream that is not an http(s) URL', async () => {
    await assert.rejects(
      startMeter({ upstream: 'ftp://models' }),
      /Expected the meter's upstream to be an http\(s\) URL, got "ftp:\/\/models"/,
    );
  });
});
