import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/** What the stub answers each model call with: a tool call (an agent's loop goes on) and the usage it reports. */
export interface StubTurn {
  readonly input: number;
  readonly output: number;
  /** Of `input`: read from the prompt cache. */
  readonly cached?: number;
  /** Of `input`: written to the prompt cache (Anthropic). */
  readonly cacheWrite?: number;
}

export interface ModelStub {
  /** `http://127.0.0.1:<port>`: OpenAI clients take it with `/v1`, Anthropic's as it is. */
  readonly url: string;
  /** Each request: its path, headers and parsed body. */
  readonly requests: { path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

const TOOL = { name: 'shell', arguments: { command: ['cat', 'src/math.js'] } };

/** Writes each event in two pieces, so a reader meets events (and lines) cut across chunks. */
async function writeEvents(response: ServerResponse, events: readonly { event?: string; data: unknown }[]): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const { event, data } of events) {
    const text = `${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
    const half = Math.floor(text.length / 2);
    response.write(text.slice(0, half));
    await new Promise((resolve) => setImmediate(resolve));
    response.write(text.slice(half));
  }
  response.end();
}

function responsesAnswer(model: unknown, turn: StubTurn, index: number): { events: { event: string; data: unknown }[]; body: unknown } {
  const item = {
    type: 'function_call',
    id: `fc_${index}`,
    call_id: `call_${index}`,
    name: TOOL.name,
    arguments: JSON.stringify(TOOL.arguments),
  };
  const usage = {
    input_tokens: turn.input,
    input_tokens_details: { cached_tokens: turn.cached ?? 0 },
    output_tokens: turn.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: turn.input + turn.output,
  };
  const response = { id: `resp_${index}`, object: 'response', status: 'completed', model, output: [item], usage };
  return {
    body: response,
    events: [
      {
        event: 'response.created',
        data: { type: 'response.created', response: { ...response, status: 'in_progress', output: [], usage: null } },
      },
      {
        event: 'response.output_item.added',
        data: { type: 'response.output_item.added', output_index: 0, item: { ...item, arguments: '' } },
      },
      {
        event: 'response.function_call_arguments.delta',
        data: { type: 'response.function_call_arguments.delta', output_index: 0, delta: item.arguments },
      },
      { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
      { event: 'response.completed', data: { type: 'response.completed', response } },
    ],
  };
}

function chatAnswer(model: unknown, turn: StubTurn, index: number, withUsage: boolean): { events: { data: unknown }[]; body: unknown } {
  const call = { id: `call_${index}`, type: 'function', function: { name: TOOL.name, arguments: JSON.stringify(TOOL.arguments) } };
  const usage = {
    prompt_tokens: turn.input,
    completion_tokens: turn.output,
    total_tokens: turn.input + turn.output,
    prompt_tokens_details: { cached_tokens: turn.cached ?? 0 },
  };
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): unknown => ({
    id: `chatcmpl-${index}`,
    object: 'chat.completion.chunk',
    model,
    choices,
    ...extra,
  });
  return {
    body: {
      id: `chatcmpl-${index}`,
      object: 'chat.completion',
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }],
      usage,
    },
    events: [
      {
        data: chunk([
          {
            index: 0,
            delta: { role: 'assistant', tool_calls: [{ index: 0, ...call, function: { name: TOOL.name, arguments: '' } }] },
            finish_reason: null,
          },
        ]),
      },
      {
        data: chunk([
          { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] }, finish_reason: null },
        ]),
      },
      { data: chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]) },
      ...(withUsage ? [{ data: chunk([], { usage }) }] : []),
      { data: '[DONE]' },
    ],
  };
}

function messagesAnswer(model: unknown, turn: StubTurn, index: number): { events: { event: string; data: unknown }[]; body: unknown } {
  const cached = turn.cached ?? 0;
  const written = turn.cacheWrite ?? 0;
  const usage = { input_tokens: turn.input - cached - written, cache_read_input_tokens: cached, cache_creation_input_tokens: written };
  const block = { type: 'tool_use', id: `toolu_${index}`, name: TOOL.name, input: TOOL.arguments };
  const message = {
    id: `msg_${index}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [block],
    stop_reason: 'tool_use',
    stop_sequence: null,
  };
  return {
    body: { ...message, usage: { ...usage, output_tokens: turn.output } },
    events: [
      {
        event: 'message_start',
        data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } },
      },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } } },
      {
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(TOOL.arguments) } },
      },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: turn.output } },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ],
  };
}

/**
 * A model endpoint on 127.0.0.1 speaking OpenAI Responses (`POST /v1/responses`), Chat Completions
 * (`POST /v1/chat/completions`, usage in the stream only when `stream_options.include_usage` asks) and
 * Anthropic Messages (`POST /v1/messages`), streamed or not: every answer is a tool call reporting the usage of
 * the turn `turn(index)` gives. `gzip` compresses whole answers whatever the request accepts.
 */
export async function startModelStub({ turn, gzip = false }: { turn: (index: number) => StubTurn; gzip?: boolean }): Promise<ModelStub> {
  const requests: ModelStub['requests'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const index = requests.push({ path: request.url ?? '', headers: request.headers, body }) - 1;
      const usage = turn(index);
      const stream = body.stream === true;
      const answer =
        request.url === '/v1/responses'
          ? responsesAnswer(body.model, usage, index)
          : request.url === '/v1/chat/completions'
            ? chatAnswer(body.model, usage, index, (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true)
            : request.url === '/v1/messages'
              ? messagesAnswer(body.model, usage, index)
              : undefined;
      if (answer === undefined) {
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no route ${request.url}` } }));
        return;
      }
      if (stream) {
        void writeEvents(response, answer.events);
        return;
      }
      const text = Buffer.from(JSON.stringify(answer.body));
      if (gzip) response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(text));
      else response.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
