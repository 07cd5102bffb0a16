import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startOpenAIStub } from '../../src/testing/openai-stub-server.js';

const chat = (baseURL: string, body: unknown): Promise<Response> =>
  fetch(`${baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('startOpenAIStub', () => {
  it('records every request, answers the script in order, then 500 once it runs out', async () => {
    const stub = await startOpenAIStub({ replies: ['first', { content: 'second', usage: { prompt_tokens: 3, completion_tokens: 4 } }] });
    try {
      assert.match(stub.baseURL, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const first = (await (await chat(stub.baseURL, { model: 'm', messages: [] })).json()) as {
        choices: Array<{ message: { content: string } }>;
      };
      assert.equal(first.choices[0]?.message.content, 'first');
      const second = (await (await chat(stub.baseURL, { model: 'm', n: 2 })).json()) as { usage: unknown };
      assert.deepEqual(second.usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
      const third = await chat(stub.baseURL, { model: 'm' });
      assert.equal(third.status, 500);
      assert.deepEqual(await third.json(), { error: { message: 'no scripted reply left for call 3', type: 'server_error', code: null } });
      assert.deepEqual(stub.requests, [{ model: 'm', messages: [] }, { model: 'm', n: 2 }, { model: 'm' }]);
    } finally {
      await stub.close();
    }
  });

  it('sends scripted tool calls in the wire format, arguments as JSON text', async () => {
    const stub = await startOpenAIStub({
      replies: [
        {
          toolCalls: [
            { name: 'edit', arguments: { file: 'a' } },
            { name: 'raw', arguments: '{"x":' },
          ],
        },
      ],
    });
    try {
      const answer = (await (await chat(stub.baseURL, { model: 'm' })).json()) as { choices: unknown[] };
      assert.deepEqual(answer.choices, [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1_1', type: 'function', function: { name: 'edit', arguments: '{"file":"a"}' } },
              { id: 'call_1_2', type: 'function', function: { name: 'raw', arguments: '{"x":' } },
            ],
          },
        },
      ]);
    } finally {
      await stub.close();
    }
  });

  it('answers 404 off the chat-completions route and closes with a request still waiting', async () => {
    const stub = await startOpenAIStub({ replies: [{ content: 'late', delayMs: 60_000 }] });
    assert.equal((await fetch(`${stub.baseURL}/models`)).status, 404);
    const waiting = chat(stub.baseURL, { model: 'm' }).catch((error: unknown) => error);
    while (stub.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await stub.close();
    assert.ok((await waiting) instanceof Error);
  });
});
