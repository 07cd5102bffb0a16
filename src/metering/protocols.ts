import type { ModelProtocol } from '../core/model-call.js';
import type { TokenCount } from './prices.js';

// What the meter reads of each protocol: which requests are model calls, their model and whether they stream,
// the usage an answer reports (whole or streamed), and the error body an agent of that protocol understands.

/** The protocol of a request path: by its last segments, so any prefix (`/v1`, `/api/v1`) is the endpoint's. */
export function protocolOf(pathname: string): ModelProtocol {
  if (pathname.endsWith('/responses')) return 'responses';
  if (pathname.endsWith('/chat/completions')) return 'chat';
  if (pathname.endsWith('/messages')) return 'messages';
  return 'other';
}

type Json = Record<string, unknown>;

const object = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const tokens = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);

/** What the meter takes from a request body. */
export interface CallRequest {
  readonly model?: string;
  readonly stream: boolean;
  /** The output cap the request set, for the rate limits' estimate. */
  readonly maxOutputTokens?: number;
  /** The body to send on: the agent's, or (a streamed chat completion) the same asking for usage. */
  readonly body: Buffer;
}

/**
 * The request's model, stream flag and output cap. A streamed chat completion is sent on with
 * `stream_options.include_usage`, so that its last chunk reports usage.
 */
export function readRequest(protocol: ModelProtocol, body: Buffer): CallRequest {
  let json: Json | undefined;
  try {
    json = object(JSON.parse(body.toString('utf8')));
  } catch {
    json = undefined;
  }
  if (json === undefined) return { stream: false, body };
  const model = typeof json.model === 'string' ? json.model : undefined;
  const stream = json.stream === true;
  const cap = [json.max_output_tokens, json.max_completion_tokens, json.max_tokens].find((value) => typeof value === 'number');
  const facts = { ...(model === undefined ? {} : { model }), stream, ...(cap === undefined ? {} : { maxOutputTokens: cap as number }) };
  const options = object(json.stream_options);
  if (protocol === 'chat' && stream && options?.include_usage !== true) {
    const asked = { ...json, stream_options: { ...options, include_usage: true } };
    return { ...facts, body: Buffer.from(JSON.stringify(asked)) };
  }
  return { ...facts, body };
}

/** OpenAI's usage (Responses: `input_tokens`; Chat Completions: `prompt_tokens`), cached prompt tokens included in the input. */
function openAIUsage(usage: Json): TokenCount {
  const details = object(usage.input_tokens_details) ?? object(usage.prompt_tokens_details);
  return {
    input: tokens(usage.input_tokens ?? usage.prompt_tokens),
    cachedInput: tokens(details?.cached_tokens),
    cacheWrite: 0,
    output: tokens(usage.output_tokens ?? usage.completion_tokens),
  };
}

/** Anthropic's usage, whose `input_tokens` leaves out the cache reads and writes: the input here counts them all. */
function anthropicUsage(usage: Json, before?: TokenCount): TokenCount {
  const cachedInput = usage.cache_read_input_tokens === undefined ? (before?.cachedInput ?? 0) : tokens(usage.cache_read_input_tokens);
  const cacheWrite =
    usage.cache_creation_input_tokens === undefined ? (before?.cacheWrite ?? 0) : tokens(usage.cache_creation_input_tokens);
  const plain =
    usage.input_tokens === undefined
      ? (before?.input ?? 0) - (before?.cachedInput ?? 0) - (before?.cacheWrite ?? 0)
      : tokens(usage.input_tokens);
  return { input: plain + cachedInput + cacheWrite, cachedInput, cacheWrite, output: tokens(usage.output_tokens) };
}

/** The usage a whole (not streamed) answer body reports; undefined when it reports none. */
export function bodyUsage(protocol: ModelProtocol, body: unknown): TokenCount | undefined {
  const usage = object(object(body)?.usage);
  if (usage === undefined || protocol === 'other') return undefined;
  return protocol === 'messages' ? anthropicUsage(usage) : openAIUsage(usage);
}

/**
 * The usage of a streamed answer so far, given one event after another: Responses' `response.completed`
 * (or `response.incomplete`/`response.failed`), the chat chunk that carries `usage` (the last), Anthropic's
 * `message_start` (the prompt) then `message_delta` (the output so far).
 */
export function streamUsage(protocol: ModelProtocol, event: unknown, before: TokenCount | undefined): TokenCount | undefined {
  const data = object(event);
  if (data === undefined) return before;
  switch (protocol) {
    case 'responses': {
      const usage = object(object(data.response)?.usage);
      return typeof data.type === 'string' && data.type.startsWith('response.') && usage !== undefined ? openAIUsage(usage) : before;
    }
    case 'chat': {
      const usage = object(data.usage);
      return usage === undefined ? before : openAIUsage(usage);
    }
    case 'messages': {
      if (data.type === 'message_start') {
        const usage = object(object(data.message)?.usage);
        return usage === undefined ? before : anthropicUsage(usage);
      }
      const usage = object(data.usage);
      return data.type === 'message_delta' && usage !== undefined ? anthropicUsage(usage, before) : before;
    }
    case 'other':
      return before;
  }
}

/** An error body in the protocol's shape: OpenAI's `{error: {message, type, code}}`, Anthropic's `{type: 'error', error: {type, message}}`. */
export function errorAnswer(
  protocol: ModelProtocol,
  status: number,
  { type, message, code = null }: { type: string; message: string; code?: string | null },
): { status: number; body: unknown } {
  return protocol === 'messages'
    ? { status, body: { type: 'error', error: { type, message } } }
    : { status, body: { error: { message, type, param: null, code } } };
}

/**
 * The error an agent of the protocol reads as "no more money": OpenAI's `insufficient_quota` (HTTP 429, which
 * Codex takes as final), Anthropic's `billing_error` (HTTP 402, which its clients do not retry); a call the meter
 * cannot price is a plain invalid request (400).
 */
export function refusalAnswer(protocol: ModelProtocol, kind: 'budget' | 'no_price', message: string): { status: number; body: unknown } {
  if (kind === 'no_price') return errorAnswer(protocol, 400, { type: 'invalid_request_error', message, code: 'model_not_priced' });
  return protocol === 'messages'
    ? errorAnswer(protocol, 402, { type: 'billing_error', message })
    : errorAnswer(protocol, 429, { type: 'insufficient_quota', message, code: 'insufficient_quota' });
}
