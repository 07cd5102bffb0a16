import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the stub. A string is shorthand for `{ content }`. */
export type StubReply =
  | string
  | {
      /** The assistant message; for a status of 400 or more, the error message. @default '' */
      readonly content?: string;
      /** HTTP status; 400 and above answer an OpenAI-style `{ error: { message } }` body. @default 200 */
      readonly status?: number;
      /** Milliseconds to wait before answering; a client that hangs up meanwhile gets nothing. @default 0 */
      readonly delayMs?: number;
      /** Token counts reported with a successful answer. @default { prompt_tokens: 0, completion_tokens: 0 } */
      readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number };
      /**
       * Tool calls of the answer, sent as OpenAI's `tool_calls` (ids `call_<reply>_<index>`, `arguments` as the JSON
       * text, or the string as given) with `finish_reason: "tool_calls"`.
       */
      readonly toolCalls?: readonly { readonly name: string; readonly arguments: unknown }[];
    };

/** A scripted answer's message and finish reason in the chat-completions wire format. */
function choiceOf(reply: Exclude<StubReply, string>, index: number): { message: Record<string, unknown>; finish_reason: string } {
  const { content = '', toolCalls = [] } = reply;
  if (toolCalls.length === 0) return { message: { role: 'assistant', content }, finish_reason: 'stop' };
  const tool_calls = toolCalls.map((call, position) => ({
    id: `call_${index + 1}_${position + 1}`,
    type: 'function',
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  return { message: { role: 'assistant', content: content === '' ? null : content, tool_calls }, finish_reason: 'tool_calls' };
}

export interface OpenAIStub {
  /** Base URL for an OpenAI-compatible client, e.g. `http://127.0.0.1:41234/v1`. */
  readonly baseURL: string;
  /** The parsed JSON body of every chat-completions request, in arrival order. */
  readonly requests: unknown[];
  /** When each request arrived (ms since the epoch), in the same order as `requests`. */
  readonly arrivals: number[];
  close(): Promise<void>;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Starts a real HTTP server on 127.0.0.1 that speaks the (non-streaming) OpenAI chat-completions
 * protocol and answers `POST /v1/chat/completions` with scripted replies, one per call in order.
 * Past the script, `respond` answers from the request body; without it the stub answers 500
 * `no scripted reply left`, so a test that calls the model more often than it meant to fails loudly. `response_format` is ignored: the scripted content is the answer.
 * @example
 * const stub = await startOpenAIStub({ replies: ['{"files":{}}', { status: 500, content: 'overloaded' }] });
 * const model = openAICompatibleModel({ baseURL: stub.baseURL, model: 'stub' });
 * // … stub.requests[0] holds the first request body …
 * await stub.close();
 */
export async function startOpenAIStub({
  replies = [],
  respond,
}: {
  replies?: readonly StubReply[];
  /** Answers every request past the scripted `replies` from its parsed body (scripted models that read the prompt). */
  respond?: (body: unknown, index: number) => StubReply;
}): Promise<OpenAIStub> {
  const requests: unknown[] = [];
  const arrivals: number[] = [];
  const respondTo = (body: unknown, index: number): Exclude<StubReply, string> => {
    if (respond === undefined) return { status: 500, content: `no scripted reply left for call ${index + 1}` };
    const reply = respond(body, index);
    return typeof reply === 'string' ? { content: reply } : reply;
  };
  const server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      send(response, 404, { error: { message: `no route ${request.method} ${request.url}`, type: 'invalid_request_error' } });
      return;
    }
    const arrived = Date.now();
    void readJson(request).then(
      (body) => {
        const index = requests.push(body) - 1;
        arrivals.push(arrived);
        const scripted = replies[index];
        const reply: Exclude<StubReply, string> =
          typeof scripted === 'string' ? { content: scripted } : (scripted ?? respondTo(body, index));
        const answer = (): void => {
          const { content = '', status = 200, usage = { prompt_tokens: 0, completion_tokens: 0 } } = reply;
          const { message, finish_reason } = choiceOf(reply, index);
          if (status >= 400) {
            send(response, status, { error: { message: content, type: 'server_error', code: null } });
            return;
          }
          send(response, status, {
            id: `chatcmpl-stub-${index + 1}`,
            object: 'chat.completion',
            created: 0,
            model: (body as { model?: unknown }).model,
            choices: [{ index: 0, message, finish_reason }],
            usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
          });
        };
        if (!reply.delayMs) return answer();
        const timer = setTimeout(answer, reply.delayMs);
        response.on('close', () => clearTimeout(timer));
      },
      (error: Error) =>
        send(response, 400, { error: { message: `the request body is not JSON: ${error.message}`, type: 'invalid_request_error' } }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    arrivals,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Keep-alive and delayed requests would otherwise hold `close` open.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
