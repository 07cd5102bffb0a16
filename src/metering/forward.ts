import type { request as httpRequest, IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { ModelProtocol } from '../core/model-call.js';
import { AnswerReader } from './answer-reader.js';
import type { TokenCount } from './prices.js';
import { errorAnswer } from './protocols.js';

// The meter's pass-through: the agent's request sent on as it came, its answer passed back byte for byte.

/** Largest request body the meter takes; a model call's prompt is far smaller. */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** Headers of one connection, not of the message: never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The agent's headers as sent on: untouched but for the connection's own, the host, the length and compression. */
function forwardHeaders(headers: IncomingHttpHeaders, length: number): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name) && !['host', 'content-length', 'accept-encoding', 'expect'].includes(name))
      out[name] = value;
  // Uncompressed, so the meter can read the usage; an endpoint that compresses anyway is decompressed to read it.
  return { ...out, 'accept-encoding': 'identity', 'content-length': String(length) };
}

/** The endpoint's answer headers as passed back: all but the connection's own (the body is unchanged, so its length holds). */
function answerHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/** Answers the agent with a JSON body of the meter's own; returns its size in bytes. */
export function sendJson(response: ServerResponse, { status, body }: { status: number; body: unknown }): number {
  const text = Buffer.from(JSON.stringify(body));
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(text.length) }).end(text);
  return text.length;
}

/** The whole request body; undefined past {@link MAX_REQUEST_BYTES}. */
export async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export interface Forwarded {
  /** The status the agent got. */
  readonly status: number;
  readonly bytesUp: number;
  readonly bytesDown: number;
  readonly usage?: TokenCount;
  readonly error?: string;
}

/** Sends the call on and its answer back, byte for byte, reading the usage from the answer as it passes. */
export function forward({
  send,
  target,
  request,
  response,
  protocol,
  body,
}: {
  send: typeof httpRequest;
  target: URL;
  request: IncomingMessage;
  response: ServerResponse;
  protocol: ModelProtocol;
  body: Buffer;
}): Promise<Forwarded> {
  return new Promise((resolve) => {
    let bytesDown = 0;
    let reader: AnswerReader | undefined;
    let settled = false;
    const done = (status: number, error?: string): void => {
      if (settled) return;
      settled = true;
      const usage = reader?.usage();
      resolve({
        status,
        bytesUp: body.length,
        bytesDown,
        ...(usage === undefined ? {} : { usage }),
        ...(error === undefined ? {} : { error }),
      });
    };
    const upstream = send(target, { method: request.method ?? 'POST', headers: forwardHeaders(request.headers, body.length) }, (answer) => {
      const status = answer.statusCode ?? 502;
      response.writeHead(status, answerHeaders(answer.headers));
      reader = new AnswerReader(protocol, answer.headers);
      answer.on('data', (chunk: Buffer) => {
        bytesDown += chunk.length;
        reader?.push(chunk);
        response.write(chunk);
      });
      // The usage is read (and the caller accounts it) before the agent sees the answer end: an agent that
      // calls again at once is measured against a spend that includes this call, also when it was compressed.
      answer.once('end', () => {
        void reader?.end().then(() => {
          done(status);
          response.end();
        });
      });
      answer.once('error', (error: NodeJS.ErrnoException) => {
        response.destroy();
        void reader?.end().then(() => done(status, error.code ?? error.message));
      });
    });
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code ?? error.message;
      if (response.headersSent) {
        response.destroy();
        void (reader?.end() ?? Promise.resolve()).then(() => done(response.statusCode, reason));
        return;
      }
      const answer = errorAnswer(protocol, 502, {
        type: protocol === 'messages' ? 'api_error' : 'server_error',
        message: `redline's meter could not reach the endpoint: ${reason}`,
      });
      bytesDown = sendJson(response, answer);
      done(502, reason);
    });
    // The agent hung up (it was ended, or gave up): the endpoint's answer goes nowhere, so it is cut too.
    response.once('close', () => {
      if (!response.writableFinished) {
        upstream.destroy();
        void (reader?.end() ?? Promise.resolve()).then(() => done(response.statusCode, 'agent closed the connection'));
      }
    });
    upstream.end(body);
  });
}
