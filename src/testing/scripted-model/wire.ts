import type { Conversation, Turn } from './script.js';

// The four wire protocols the scripted model speaks: what it reads of a request, and how it answers a turn,
// whole or as server-sent events, each answer reporting the usage the server was given.

export type Json = Record<string, unknown>;

/** Tokens each answer reports. */
export interface ScriptedUsage {
  readonly input: number;
  readonly output: number;
}

/** One server-sent event. */
export interface WireEvent {
  readonly event?: string;
  readonly data: unknown;
}

/** An answer in one protocol: its events when streamed, its body when not. */
export interface WireAnswer {
  readonly events: readonly WireEvent[];
  readonly body: unknown;
}

export interface Wire {
  /** What the script needs of a request body. */
  read(body: Json): Conversation;
  /** The answer to a turn; `index` numbers the server's answers (ids). */
  answer(turn: Turn, facts: { readonly model: unknown; readonly usage: ScriptedUsage; readonly index: number }): WireAnswer;
}

const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const record = (value: unknown): Json => (typeof value === 'object' && value !== null ? (value as Json) : {});

/** Tools by name, each with the names of its parameters (`schema` finds its JSON schema). */
function toolsOf(tools: readonly unknown[], name: (tool: Json) => unknown, schema: (tool: Json) => unknown): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const tool of tools.map(record)) found[String(name(tool) ?? '')] = Object.keys(record(record(schema(tool)).properties));
  return found;
}

/** Every string under `value`, for the text an agent states its working directory in. */
function textsOf(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 8) return out;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) textsOf(item, out, depth + 1);
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) textsOf(item, out, depth + 1);
  return out;
}

/** A Responses tool's name, `<namespace>.<name>` for a tool of a namespace. */
function namespaced(name: string): { name: string; namespace?: string } {
  const dot = name.indexOf('.');
  return dot === -1 ? { name } : { namespace: name.slice(0, dot), name: name.slice(dot + 1) };
}

/** OpenAI Responses (`POST …/responses`): Codex CLI. */
export const responsesWire: Wire = {
  read(body) {
    const input = array(body.input).map(record);
    // Codex offers an MCP server's tools in a namespace (`mcp__redline`): they go by `<namespace>.<name>`.
    const tools = array(body.tools).flatMap((tool) => {
      const { type, name, tools: inner } = record(tool);
      return type === 'namespace'
        ? array(inner).map((item) => ({ ...record(item), name: `${String(name)}.${String(record(item).name)}` }))
        : [tool];
    });
    return {
      tools: toolsOf(
        tools,
        (tool) => tool.name ?? tool.type,
        (tool) => tool.parameters,
      ),
      toolResults: input.filter((item) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output').length,
      text: textsOf([body.instructions, input.filter((item) => item.type === 'message' || item.role !== undefined)]).join('\n'),
    };
  },
  answer(turn, { model, usage, index }) {
    const item =
      turn.kind === 'tool'
        ? {
            type: 'function_call',
            id: `fc_${index}`,
            call_id: `call_${index}`,
            ...namespaced(turn.name),
            arguments: JSON.stringify(turn.arguments),
          }
        : {
            type: 'message',
            id: `msg_${index}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: turn.text, annotations: [] }],
          };
    const response = {
      id: `resp_${index}`,
      object: 'response',
      created_at: 0,
      status: 'completed',
      model,
      output: [item],
      usage: {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.output,
      },
    };
    const pending = { ...response, status: 'in_progress', output: [], usage: null };
    const delta =
      turn.kind === 'tool'
        ? { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: 0, delta: JSON.stringify(turn.arguments) }
        : { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: turn.text };
    const events = [
      { type: 'response.created', response: pending },
      { type: 'response.in_progress', response: pending },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: turn.kind === 'tool' ? { ...item, arguments: '' } : { ...item, content: [] },
      },
      delta,
      { type: 'response.output_item.done', output_index: 0, item },
      { type: 'response.completed', response },
    ].map((data, sequence) => ({ event: data.type, data: { ...data, sequence_number: sequence } }));
    return { events, body: response };
  },
};

/** OpenAI Chat Completions (`POST …/chat/completions`): Qwen Code, and every OpenAI-compatible client. */
export const chatWire: Wire = {
  read(body) {
    const messages = array(body.messages).map(record);
    return {
      tools: toolsOf(
        array(body.tools),
        (tool) => record(tool.function).name,
        (tool) => record(tool.function).parameters,
      ),
      toolResults: messages.filter((message) => message.role === 'tool').length,
      text: textsOf(
        messages.filter((message) => message.role === 'system' || message.role === 'user').map((message) => message.content),
      ).join('\n'),
    };
  },
  answer(turn, { model, usage, index }) {
    const call =
      turn.kind === 'tool'
        ? { id: `call_${index}`, type: 'function', function: { name: turn.name, arguments: JSON.stringify(turn.arguments) } }
        : undefined;
    const reported = { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output };
    const finish = call === undefined ? 'stop' : 'tool_calls';
    const message =
      call === undefined
        ? { role: 'assistant', content: turn.kind === 'text' ? turn.text : '' }
        : { role: 'assistant', content: null, tool_calls: [call] };
    const chunk = (choices: unknown[], extra: Json = {}): unknown => ({
      id: `chatcmpl-${index}`,
      object: 'chat.completion.chunk',
      created: 0,
      model,
      choices,
      ...extra,
    });
    const delta =
      call === undefined
        ? { role: 'assistant', content: turn.kind === 'text' ? turn.text : '' }
        : { role: 'assistant', tool_calls: [{ index: 0, ...call }] };
    return {
      body: {
        id: `chatcmpl-${index}`,
        object: 'chat.completion',
        created: 0,
        model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: reported,
      },
      events: [
        { data: chunk([{ index: 0, delta, finish_reason: null }]) },
        { data: chunk([{ index: 0, delta: {}, finish_reason: finish }]) },
        { data: chunk([], { usage: reported }) },
        { data: '[DONE]' },
      ],
    };
  },
};

/** Anthropic Messages (`POST …/messages`): Claude Code. */
export const messagesWire: Wire = {
  read(body) {
    const messages = array(body.messages).map(record);
    const blocks = messages.flatMap((message) => array(message.content).map(record));
    return {
      tools: toolsOf(
        array(body.tools),
        (tool) => tool.name,
        (tool) => tool.input_schema,
      ),
      toolResults: blocks.filter((block) => block.type === 'tool_result').length,
      text: textsOf([body.system, messages.filter((message) => message.role === 'user').map((message) => message.content)]).join('\n'),
    };
  },
  answer(turn, { model, usage, index }) {
    const block =
      turn.kind === 'tool'
        ? { type: 'tool_use', id: `toolu_${index}`, name: turn.name, input: turn.arguments }
        : { type: 'text', text: turn.text };
    const stop = turn.kind === 'tool' ? 'tool_use' : 'end_turn';
    const message = {
      id: `msg_${index}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [block],
      stop_reason: stop,
      stop_sequence: null,
    };
    const counted = { input_tokens: usage.input, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    const delta =
      turn.kind === 'tool'
        ? { type: 'input_json_delta', partial_json: JSON.stringify(turn.arguments) }
        : { type: 'text_delta', text: turn.text };
    const events = [
      { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...counted, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: turn.kind === 'tool' ? { ...block, input: {} } : { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output } },
      { type: 'message_stop' },
    ].map((data) => ({ event: data.type, data }));
    return { events, body: { ...message, usage: { ...counted, output_tokens: usage.output } } };
  },
};

/** Gemini API (`POST …/models/<model>:generateContent` or `:streamGenerateContent`): Gemini CLI. */
export const geminiWire: Wire = {
  read(body) {
    const contents = array(body.contents).map(record);
    const parts = contents.flatMap((content) => array(content.parts).map(record));
    return {
      tools: toolsOf(
        array(body.tools).flatMap((tool) => array(record(tool).functionDeclarations)),
        (tool) => tool.name,
        (tool) => tool.parametersJsonSchema ?? tool.parameters,
      ),
      toolResults: parts.filter((part) => part.functionResponse !== undefined).length,
      text: textsOf([body.systemInstruction, contents.filter((content) => content.role === 'user')]).join('\n'),
    };
  },
  answer(turn, { model, usage }) {
    const part = turn.kind === 'tool' ? { functionCall: { name: turn.name, args: turn.arguments } } : { text: turn.text };
    const body = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output },
      modelVersion: model,
    };
    return { events: [{ data: body }], body };
  },
};

/** The protocol of a request path, by its end (any prefix is the endpoint's), or undefined. */
export function wireOf(pathname: string): Wire | undefined {
  if (pathname.endsWith('/responses')) return responsesWire;
  if (pathname.endsWith('/chat/completions')) return chatWire;
  if (pathname.endsWith('/messages')) return messagesWire;
  if (/:(?:stream)?generateContent$/i.test(pathname)) return geminiWire;
  return undefined;
}
