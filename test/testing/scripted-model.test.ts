import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nextTurn, workingDirectory } from '../../src/testing/scripted-model/script.js';
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model/server.js';

// The scripted model server the real-agent suite drives agent CLIs with: each protocol, streamed and whole,
// answering with the script's next step in the agent's own tools, usage reported.

let model: ScriptedModel;
before(async () => {
  model = await startScriptedModel({ usage: { input: 120, output: 7 } });
});
after(() => model.close());

const post = async (path: string, body: unknown): Promise<Response> =>
  fetch(`${model.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The data of each server-sent event of an answer. */
async function events(response: Response): Promise<unknown[]> {
  const text = await response.text();
  return [...text.matchAll(/^data: (.*)$/gm)].map((match) => (match[1] === '[DONE]' ? '[DONE]' : JSON.parse(match[1] as string)));
}

describe('startScriptedModel', () => {
  it('OpenAI Responses, streamed: the next step as a call of the shell tool the agent offers (Codex: exec_command), then done', async () => {
    model.setScript({ steps: [{ shell: 'npm test' }] });
    const tools = [{ type: 'function', name: 'exec_command', parameters: { properties: { cmd: {}, workdir: {} } } }];
    const first = await events(
      await post('/v1/responses', { model: 'gpt-5', stream: true, tools, input: [{ role: 'user', content: 'go' }] }),
    );
    const done = first.find((event) => (event as { type: string }).type === 'response.completed') as {
      response: { output: { name: string; arguments: string }[]; usage: { input_tokens: number; output_tokens: number } };
    };
    assert.deepEqual(
      [done.response.output[0]?.name, JSON.parse(done.response.output[0]?.arguments ?? '{}')],
      ['exec_command', { cmd: 'npm test' }],
    );
    assert.deepEqual([done.response.usage.input_tokens, done.response.usage.output_tokens], [120, 7]);
    const input = [
      { role: 'user', content: 'go' },
      { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
    ];
    const second = await events(await post('/v1/responses', { model: 'gpt-5', stream: true, tools, input }));
    const text = second.find((event) => (event as { type: string }).type === 'response.output_item.done') as {
      item: { type: string; content: { text: string }[] };
    };
    assert.deepEqual([text.item.type, text.item.content[0]?.text], ['message', 'done']);
    assert.equal(model.calls.length, 2);
  });

  it('Anthropic Messages: a write is Read then Write at the working directory the prompt states (Claude Code)', async () => {
    model.setScript({ steps: [{ write: { path: 'src/a.js', content: 'x' } }] });
    const tools = ['Read', 'Write', 'Bash'].map((name) => ({
      name,
      input_schema: { properties: name === 'Bash' ? { command: {} } : { file_path: {}, content: {} } },
    }));
    const system = [{ type: 'text', text: 'Environment\n - Primary working directory: /work/copy\n' }];
    const answers: unknown[] = [];
    const messages: unknown[] = [{ role: 'user', content: 'fix' }];
    for (let turn = 0; turn < 3; turn += 1) {
      const answer = (await (await post('/v1/messages', { model: 'claude-sonnet-4-5', system, tools, messages })).json()) as {
        content: { type: string; name?: string; input?: unknown; text?: string }[];
        usage: { input_tokens: number; output_tokens: number };
      };
      answers.push(answer.content[0]);
      assert.deepEqual([answer.usage.input_tokens, answer.usage.output_tokens], [120, 7]);
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] });
    }
    assert.deepEqual(
      answers.map((block) => ({ ...(block as object), id: undefined })),
      [
        { type: 'tool_use', id: undefined, name: 'Read', input: { file_path: '/work/copy/src/a.js' } },
        { type: 'tool_use', id: undefined, name: 'Write', input: { file_path: '/work/copy/src/a.js', content: 'x' } },
        { type: 'text', id: undefined, text: 'done' },
      ],
    );
  });

  it('Chat Completions, streamed, and the Gemini API: tool calls with usage; a request without tools gets "ok"', async () => {
    model.setScript({ steps: [{ shell: 'ls' }] });
    const chat = await events(
      await post('/v1/chat/completions', {
        model: 'qwen3-coder-plus',
        stream: true,
        tools: [
          { type: 'function', function: { name: 'run_shell_command', parameters: { properties: { command: {}, is_background: {} } } } },
        ],
        messages: [{ role: 'user', content: 'go' }],
      }),
    );
    const call = (chat[0] as { choices: { delta: { tool_calls: { function: { name: string; arguments: string } }[] } }[] }).choices[0]
      ?.delta.tool_calls[0]?.function;
    assert.deepEqual([call?.name, JSON.parse(call?.arguments ?? '{}')], ['run_shell_command', { command: 'ls', is_background: false }]);
    assert.deepEqual((chat.at(-2) as { usage: unknown }).usage, { prompt_tokens: 120, completion_tokens: 7, total_tokens: 127 });
    assert.equal(chat.at(-1), '[DONE]');

    const gemini = await events(
      await post('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', {
        contents: [{ role: 'user', parts: [{ text: 'go' }] }],
        tools: [{ functionDeclarations: [{ name: 'run_shell_command', parametersJsonSchema: { properties: { command: {} } } }] }],
      }),
    );
    const part = gemini[0] as {
      candidates: { content: { parts: { functionCall: unknown }[] } }[];
      usageMetadata: { promptTokenCount: number };
    };
    assert.deepEqual(part.candidates[0]?.content.parts[0]?.functionCall, { name: 'run_shell_command', args: { command: 'ls' } });
    assert.equal(part.usageMetadata.promptTokenCount, 120);

    const side = (await (
      await post('/v1/messages', { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'title?' }] })
    ).json()) as {
      content: { text: string }[];
    };
    assert.equal(side.content[0]?.text, 'ok');
  });

  it('loops on its last step with `loop`, and refuses every call with `refuse`', async () => {
    const conversation = (results: number) => ({ tools: { Bash: ['command'] }, toolResults: results, text: '' });
    const script = { steps: [{ shell: 'a' }, { shell: 'b' }], loop: true };
    assert.deepEqual(
      [0, 1, 2, 5].map(
        (results) => (nextTurn(script, conversation(results)) as unknown as { arguments: { command: string } }).arguments.command,
      ),
      ['a', 'b', 'b', 'b'],
    );
    model.setScript({ steps: [], refuse: 401 });
    const refused = await post('/v1/messages', { model: 'm', tools: [{ name: 'Bash' }], messages: [] });
    assert.equal(refused.status, 401);
    assert.match(JSON.stringify(await refused.json()), /authentication_error/);
  });

  it('writes through the shell, without command substitution, when it knows no file tool or no working directory', () => {
    const turn = nextTurn(
      { steps: [{ write: { path: "src/it's.js", content: 'x' } }] },
      { tools: { run_shell_command: ['command'] }, toolResults: 0, text: '' },
    );
    assert.deepEqual(turn, {
      kind: 'tool',
      name: 'run_shell_command',
      arguments: { command: "mkdir -p 'src' && printf %s 'x' > 'src/it'\\''s.js'" },
    });
    assert.equal(workingDirectory('- **Workspace Directories:**\n  - /tmp/ws\n'), '/tmp/ws');
    assert.equal(workingDirectory('this working directory.</description> /not/it'), undefined);
  });

  it('calls a named tool with the given arguments: by its name, else the one ending in __name or in a Responses namespace (MCP tools)', async () => {
    const tools = { Bash: ['command'], mcp__redline__redline_submit: ['runId'] };
    const turn = (tool: string) => nextTurn({ steps: [{ tool, input: { runId: 'r' } }] }, { tools, toolResults: 0, text: '' });
    assert.deepEqual(turn('redline_submit'), { kind: 'tool', name: 'mcp__redline__redline_submit', arguments: { runId: 'r' } });
    assert.deepEqual(turn('Bash'), { kind: 'tool', name: 'Bash', arguments: { runId: 'r' } });
    assert.deepEqual(turn('redline_status'), {
      kind: 'text',
      text: 'scripted model: no tool redline_status among Bash, mcp__redline__redline_submit',
    });
    // Codex offers an MCP server's tools in a namespace, and takes a call of one with the namespace beside its name.
    model.setScript({ steps: [{ tool: 'redline_checks', input: {} }] });
    const namespace = {
      type: 'namespace',
      name: 'mcp__redline',
      tools: [{ type: 'function', name: 'redline_checks', parameters: { type: 'object', properties: {} } }],
    };
    const answer = (await (await post('/v1/responses', { model: 'gpt-5', tools: [namespace], input: [] })).json()) as {
      output: Record<string, unknown>[];
    };
    const { type, namespace: called, name, arguments: args } = answer.output[0] ?? {};
    assert.deepEqual([type, called, name, args], ['function_call', 'mcp__redline', 'redline_checks', '{}']);
  });
});
