import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nextTurn, type Script, type Turn } from './script.js';
import { wireOf, type Json, type ScriptedUsage, type WireEvent } from './wire.js';

/** One model call the server answered. */
export interface ScriptedCall {
  /** The request's path, with its query. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Json;
  /** What the script answered, or the status it refused the call with. */
  readonly answer: Turn | { readonly refused: number };
}

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>`: OpenAI clients take it with `/v1`, Anthropic's and Gemini's as it is. */
  readonly url: string;
  /** Every model call, in arrival order (side requests and model lists are not kept). */
  readonly calls: ScriptedCall[];
  /** Replaces the script (and forgets the calls): one server serves the tests of a file in turn. */
  setScript(script: Script): void;
  close(): Promise<void>;
}

/** Writes a stream of server-sent events. */
function writeEvents(response: ServerResponse, events: readonly WireEvent[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const { event, data } of events)
    response.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  response.end();
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** An error body every protocol's clients read: OpenAI's `error` object with Anthropic's `type: "error"` around it. */
function errorBody(status: number): unknown {
  const type = status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error';
  const message = status === 401 ? 'scripted model: invalid x-api-key' : `scripted model: refused with ${status}`;
  return { type: 'error', error: { type, code: type, message, status } };
}

/**
 * Starts a scripted model endpoint on 127.0.0.1 (a free port) for tests of real agent CLIs: it speaks OpenAI
 * Responses (`POST …/responses`, Codex CLI), Chat Completions (`POST …/chat/completions`, Qwen Code), Anthropic
 * Messages (`POST …/messages`, Claude Code) and the Gemini API (`…:streamGenerateContent`, Gemini CLI), streamed
 * (server-sent events) or whole, and answers each call with the next step of the script as a tool call of the
 * agent's own tools ({@link nextTurn}), reporting `usage` tokens with every answer. Model lists and token
 * counts get a plausible answer; anything else 404.
 * @example
 * const model = await startScriptedModel({ script: { steps: [{ shell: "sed -i 's/a - b/a + b/' src/math.js" }] } });
 * // run `codex exec …` against `${model.url}/v1`; model.calls holds what it sent
 * await model.close();
 */
export async function startScriptedModel({
  script = { steps: [] },
  usage = { input: 1000, output: 50 },
}: {
  /** @default { steps: [] }: every call is answered `done`. */
  script?: Script;
  /** Tokens each answer reports. @default { input: 1000, output: 50 } */
  usage?: ScriptedUsage;
} = {}): Promise<ScriptedModel> {
  let current = script;
  const calls: ScriptedCall[] = [];
  let answered = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const pathname = new URL(path, 'http://scripted').pathname;
      if (request.method === 'GET' && pathname.endsWith('/models')) {
        sendJson(response, 200, { object: 'list', data: [], models: [] });
        return;
      }
      if (pathname.endsWith('/count_tokens')) {
        sendJson(response, 200, { input_tokens: usage.input });
        return;
      }
      const wire = request.method === 'POST' ? wireOf(pathname) : undefined;
      let body: Json;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Json;
      } catch {
        body = {};
      }
      if (wire === undefined) {
        sendJson(response, 404, { error: { message: `scripted model: no route ${request.method} ${pathname}` } });
        return;
      }
      if (current.refuse !== undefined) {
        calls.push({ path, headers: request.headers, body, answer: { refused: current.refuse } });
        sendJson(response, current.refuse, errorBody(current.refuse));
        return;
      }
      const conversation = wire.read(body);
      const turn = nextTurn(current, conversation);
      if (Object.keys(conversation.tools).length > 0) calls.push({ path, headers: request.headers, body, answer: turn });
      const model = body.model ?? /models\/([^:/]+)/.exec(pathname)?.[1];
      const answer = wire.answer(turn, { model, usage, index: ++answered });
      if (body.stream === true || pathname.endsWith(':streamGenerateContent')) writeEvents(response, answer.events);
      else sendJson(response, 200, answer.body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    setScript(next) {
      current = next;
      calls.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
