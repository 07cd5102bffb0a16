import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AGENT_PRESET_NAMES } from '../../src/mission/schema.js';
import { failureIn } from '../../src/proposers/agent-presets/agent-preset.js';
import { AGENT_PRESETS, presetNamed } from '../../src/proposers/agent-presets/presets.js';
import { presetIdentity } from '../../src/proposers/preset-proposer.js';

// The presets' command lines as docs/agents.md shows them, and what each reads as a failure of its environment.
// test/agents/*.e2e.ts runs these lines against the real CLIs.

const DOC = await readFile(path.resolve(import.meta.dirname, '../../docs/agents.md'), 'utf8');

/** The `# preset: NAME[, sandbox: bwrap]` blocks of the page: their line by name. */
function documented(): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const match of DOC.matchAll(/^```sh\n# preset: ([a-z]+(?:, sandbox: bwrap)?)\n([^\n]*)\n```$/gm))
    blocks.set(match[1] as string, match[2] as string);
  return blocks;
}

describe('agent presets', () => {
  it('docs/agents.md shows each preset’s line, outside and under the sandbox, byte for byte', () => {
    const blocks = documented();
    assert.deepEqual(
      [...blocks.keys()].sort(),
      Object.keys(AGENT_PRESETS)
        .flatMap((name) => [name, `${name}, sandbox: bwrap`])
        .sort(),
    );
    for (const [name, preset] of Object.entries(AGENT_PRESETS))
      for (const sandboxed of [false, true])
        assert.equal(
          blocks.get(sandboxed ? `${name}, sandbox: bwrap` : name),
          preset.line(preset.bin, { model: 'MODEL', endpoint: 'base-url', args: [], sandboxed }),
          `${name}${sandboxed ? ' under bwrap' : ''}`,
        );
  });

  it('the mission schema knows every preset by name', () => {
    assert.deepEqual([...AGENT_PRESET_NAMES], Object.keys(AGENT_PRESETS));
  });

  it('names only a bare preset name: anything else is a command line', () => {
    assert.equal(presetNamed('codex')?.package, '@openai/codex');
    for (const agent of ['codex exec', ' codex', 'Codex', 'toString', '__proto__', 'claude -p x'])
      assert.equal(presetNamed(agent), undefined, agent);
  });

  it('takes the key by its variable’s name, never its value, and the endpoint from a variable', () => {
    for (const preset of Object.values(AGENT_PRESETS)) {
      const line = preset.line(preset.bin, { endpoint: 'base-url', apiKeyEnv: 'MY_KEY', args: [], sandboxed: false });
      assert.match(line, /\$REDLINE_AGENT_BASE_URL\b/, preset.name);
      assert.match(line, /MY_KEY/, preset.name);
      assert.doesNotMatch(line, /MY_KEY=/, preset.name);
      const metered = preset.line(preset.bin, { endpoint: 'meter', args: [], sandboxed: false });
      assert.doesNotMatch(metered, /REDLINE_AGENT_BASE_URL/, preset.name);
    }
  });

  it('an --agent-arg naming the preset’s permission option replaces it; others are added, quoted for the shell', () => {
    const line = (name: string, args: string[]): string =>
      (AGENT_PRESETS[name] as (typeof AGENT_PRESETS)[string]).line(name, { args, sandboxed: false, model: 'm' });
    assert.doesNotMatch(line('qwen', ['--approval-mode', 'yolo']), /auto-edit/);
    assert.match(line('qwen', ['--approval-mode', 'yolo']), / --approval-mode yolo /);
    assert.doesNotMatch(line('gemini', ['--approval-mode=yolo']), /auto_edit/);
    assert.doesNotMatch(line('codex', ['-s', 'danger-full-access']), /workspace-write/);
    assert.doesNotMatch(line('claude', ['--dangerously-skip-permissions']), /acceptEdits/);
    assert.doesNotMatch(line('claude', ['--model', 'x']), /--model m\b/);
    assert.match(
      line('claude', ['--allowedTools', 'Bash(npm test)']),
      /--permission-mode acceptEdits --model m --allowedTools 'Bash\(npm test\)'/,
    );
    assert.match(line('codex', ["it's"]), / 'it'\\''s' /);
  });

  it('plan identity: the preset, the model and the extra arguments, not the endpoint', () => {
    const codex = AGENT_PRESETS.codex as (typeof AGENT_PRESETS)[string];
    assert.equal(presetIdentity({ preset: codex, model: 'gpt-5' }), 'preset:codex --model gpt-5');
    assert.equal(
      presetIdentity({ preset: codex, args: ['-c', 'base_url=http://127.0.0.1:4123/v1'] }),
      'preset:codex -c base_url=http://127.0.0.1:<port>/v1',
    );
    assert.notEqual(presetIdentity({ preset: codex, model: 'gpt-5' }), presetIdentity({ preset: codex, model: 'gpt-5-mini' }));
  });

  it('reads a failed session’s own message, which the finding of an agent that exited non-zero says', () => {
    const claude = AGENT_PRESETS.claude as (typeof AGENT_PRESETS)[string];
    assert.equal(
      claude.errorIn('{"type":"result","is_error":true,"subtype":"error_max_turns","result":"Reached max turns (3)"}', 'transcript'),
      'Reached max turns (3)',
    );
    assert.equal(claude.errorIn('{"type":"result","is_error":false,"result":"done"}', 'transcript'), undefined);
  });

  describe('failures of the environment, from each CLI’s own output as it prints them', () => {
    const cases: [string, string, 'transcript' | 'stderr', RegExp | undefined][] = [
      [
        'codex',
        '{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}',
        'transcript',
        /cannot reach its model endpoint: Reconnecting/,
      ],
      [
        'codex',
        '{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: invalid api key"}}',
        'transcript',
        /refused the agent's credentials: unexpected status 401/,
      ],
      // A tool's output is the agent's work, not its environment.
      [
        'codex',
        '{"type":"item.completed","item":{"type":"command_execution","aggregated_output":"curl: (7) Connection refused"}}',
        'transcript',
        undefined,
      ],
      [
        'codex',
        '{"type":"item.completed","item":{"type":"error","message":"Model metadata for `gpt-5` not found."}}',
        'transcript',
        undefined,
      ],
      ['codex', 'Connection refused', 'stderr', undefined],
      [
        'claude',
        '{"type":"result","is_error":true,"api_error":"connection_failed","result":"API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)"}',
        'transcript',
        /cannot reach its model endpoint: API Error: Connection refused/,
      ],
      [
        'claude',
        '{"type":"result","is_error":true,"result":"API Error: 401 {\\"type\\":\\"error\\",\\"error\\":{\\"type\\":\\"authentication_error\\"}}"}',
        'transcript',
        /refused the agent's credentials/,
      ],
      ['claude', '{"type":"result","is_error":true,"result":"Reached max turns (3)"}', 'transcript', undefined],
      ['claude', '{"type":"user","message":{"content":[{"type":"tool_result","content":"ECONNREFUSED"}]}}', 'transcript', undefined],
      [
        'qwen',
        '{"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"[API Error: Connection error. (cause: fetch failed)]"}}',
        'transcript',
        /cannot reach its model endpoint: \[API Error: Connection error/,
      ],
      [
        'qwen',
        '{"type":"assistant","message":{"content":[{"type":"text","text":"[API Error: Connection error.]"}]}}',
        'transcript',
        undefined,
      ],
      [
        'gemini',
        'Attempt 1 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request',
        'stderr',
        /cannot reach its model endpoint: Attempt 1 failed/,
      ],
      ['gemini', 'Warning: 256-color support not detected.', 'stderr', undefined],
      ['gemini', '{"type":"tool_result","output":"fetch failed"}', 'transcript', undefined],
    ];
    for (const [name, line, stream, expected] of cases)
      it(`${name} ${stream}: ${line.slice(0, 70)}`, () => {
        const message = (AGENT_PRESETS[name] as (typeof AGENT_PRESETS)[string]).errorIn(line, stream);
        const said = message === undefined ? undefined : failureIn(message);
        if (expected === undefined) assert.equal(said, undefined);
        else assert.match(said ?? '', expected);
      });
  });
});
