import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import type { AgentPreset } from '../../src/proposers/agent-presets/agent-preset.js';
import { claudePreset } from '../../src/proposers/agent-presets/claude.js';
import { codexPreset } from '../../src/proposers/agent-presets/codex.js';
import { agentCacheDir, cachedPrefix } from '../../src/proposers/agent-presets/find-cli.js';
import type { ScriptStep } from '../../src/testing/scripted-model/script.js';
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model/server.js';
import { redline, ROOT } from '../cli/redline.js';
import { mathMission } from '../helpers/math-mission.js';
import { tempDir } from '../helpers/workspace.js';
import { install } from './agent-suite.js';

// `redline mcp` (the built dist/: `npm run build -- --noCheck`) as the MCP server of real Codex CLI and
// Claude Code sessions, registered as docs/agents.md says and driven by the scripted model: the agent
// checks, writes a wrong fix with its own tool, submits it and is told to continue with the failing test,
// writes the right fix and submits it, and the session's run is sealed complete / verified.

const WRONG = 'export const add = (a, b) => a * b;\n';
const FIXED = 'export const add = (a, b) => a + b;\n';
const STEPS: readonly ScriptStep[] = [
  { tool: 'redline_checks', input: {} },
  { write: { path: 'src/math.js', content: WRONG } },
  { tool: 'redline_submit', input: {} },
  { write: { path: 'src/math.js', content: FIXED } },
  { tool: 'redline_submit', input: {} },
];
const PROMPT = 'Fix add in src/math.js. Call redline_checks while you work and redline_submit when done; stop when it says stop.';

/** How one client is registered with `redline mcp` and started on a task. */
interface Client {
  readonly preset: AgentPreset;
  /** The name the client gives itself in the MCP handshake. */
  readonly name: string;
  /** Steps the model takes before the script's: what the client needs before the redline tools can be called. */
  readonly prelude: readonly ScriptStep[];
  /** Registers `redline <server…>` under `home` (the client's HOME); the client's arguments and environment. */
  readonly register: (facts: {
    home: string;
    server: readonly string[];
    model: ScriptedModel;
  }) => Promise<{ args: readonly string[]; env: NodeJS.ProcessEnv }>;
}

const codex: Client = {
  preset: codexPreset,
  name: 'codex-mcp-client',
  prelude: [],
  async register({ home, server, model }) {
    const codexHome = path.join(home, '.codex');
    await mkdir(codexHome, { recursive: true });
    await writeFile(
      path.join(codexHome, 'config.toml'),
      [
        'model_provider = "scripted"',
        '[model_providers.scripted]',
        'name = "scripted"',
        `base_url = "${model.url}/v1"`,
        'env_key = "REDLINE_TEST_OPENAI_KEY"',
        'wire_api = "responses"',
        // The table docs/agents.md gives.
        '[mcp_servers.redline]',
        'command = "redline"',
        `args = ${JSON.stringify(server)}`,
        'startup_timeout_sec = 20',
        'tool_timeout_sec = 600',
        '',
      ].join('\n'),
    );
    return {
      args: ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', '--model', 'gpt-5', PROMPT],
      env: { CODEX_HOME: codexHome, REDLINE_TEST_OPENAI_KEY: 'sk-scripted-test-key' },
    };
  },
};

const claude: Client = {
  preset: claudePreset,
  name: 'claude-code',
  // Claude Code defers MCP tools: the model loads their schemas with ToolSearch before it can call them.
  prelude: [{ tool: 'ToolSearch', input: { query: 'select:mcp__redline__redline_checks,mcp__redline__redline_submit', max_results: 5 } }],
  async register({ home, server, model }) {
    const config = path.join(home, 'mcp.json');
    // The `.mcp.json` form docs/agents.md gives, passed with --mcp-config.
    await writeFile(config, JSON.stringify({ mcpServers: { redline: { type: 'stdio', command: 'redline', args: server } } }));
    const tools = ['redline_checks', 'redline_submit', 'redline_status'].map((tool) => `mcp__redline__${tool}`).join(',');
    return {
      args: [
        ...['-p', PROMPT, '--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5'],
        ...['--mcp-config', config, '--strict-mcp-config', '--allowedTools', tools, '--permission-mode', 'acceptEdits'],
      ],
      env: {
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'sk-scripted-test-key',
        CLAUDE_CODE_MAX_RETRIES: '2',
        DISABLE_AUTOUPDATER: '1',
        MCP_TOOL_TIMEOUT: '600000',
      },
    };
  },
};

/** Runs a client to its end, stdin closed (Codex reads more of its prompt from an open one). */
function runClient(
  program: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** The redline answers the client passed to the model, in order: the JSON line of each tool result that has one. */
function redlineAnswers(body: Record<string, unknown>): Record<string, unknown>[] {
  const texts: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      const item = value as Record<string, unknown>;
      // Responses: `function_call_output.output`; Messages: `tool_result.content`, a string or text blocks.
      if (item.type === 'function_call_output' || item.type === 'tool_result') texts.push(JSON.stringify(item.output ?? item.content));
      else Object.values(item).forEach(visit);
    }
  };
  visit(body);
  return texts
    .map((text) => JSON.parse(text) as unknown)
    .map((value) => (typeof value === 'string' ? value : JSON.stringify(value)))
    .flatMap((text) => text.split('\n').filter((line) => line.startsWith('{"')))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

for (const client of [codex, claude]) {
  const { preset } = client;
  describe(`redline mcp as the MCP server of ${preset.package}@${preset.version}`, { timeout: 600_000 }, () => {
    let skip: string | undefined;
    let model: ScriptedModel | undefined;
    let home: string | undefined;
    let bin: string | undefined;
    before(async () => {
      const cache = agentCacheDir();
      skip = await install(preset, cache);
      model = await startScriptedModel();
      // The client's state under a private HOME, outside /tmp (Codex refuses its sandbox's helpers there).
      await mkdir(cache, { recursive: true });
      home = await mkdtemp(path.join(cache, '.test-home-'));
      // `redline` on PATH, as an installed binary is: the built CLI.
      bin = await tempDir('redline-mcp-bin-');
      await writeFile(path.join(bin, 'redline'), `#!/bin/sh\nexec '${process.execPath}' '${path.join(ROOT, 'bin/redline.js')}' "$@"\n`);
      await chmod(path.join(bin, 'redline'), 0o755);
    });
    after(async () => {
      await model?.close();
      for (const dir of [home, bin]) if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it('the agent checks, is told to continue on a wrong fix, and its right fix seals the run complete / verified', async (t) => {
      if (skip !== undefined) return t.skip(skip);
      const scripted = model as ScriptedModel;
      scripted.setScript({ steps: [...client.prelude, ...STEPS], done: 'redline said stop' });
      const { file, ws, ledger } = await mathMission({ budgets: { maxAttempts: 3 } });
      try {
        const session = await client.register({
          home: home as string,
          server: ['mcp', '--mission', file, '--ledger', ledger],
          model: scripted,
        });
        const program = path.join(cachedPrefix(preset, agentCacheDir()), 'node_modules', '.bin', preset.bin);
        const started = Date.now();
        const { code, output } = await runClient(program, session.args, {
          cwd: ws,
          env: { ...process.env, ...session.env, HOME: home, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
        });
        t.diagnostic(`${preset.name} session: ${Date.now() - started} ms`);
        const last = scripted.calls.at(-1);
        assert.equal(code, 0, output.slice(-4000));
        assert.deepEqual(last?.answer, { kind: 'text', text: 'redline said stop' }, 'the script ran to its end');

        // What the model was told, through the client: the failing test, then continue with it, then stop.
        const [checked, wrong, right, ...rest] = redlineAnswers(last?.body ?? {});
        assert.deepEqual(rest, []);
        assert.equal(checked?.passed, false);
        assert.deepEqual([wrong?.decision, wrong?.attempt, wrong?.reason], ['continue', 1, 'checks_failing']);
        const [finding] = wrong?.findings as { reasonCodes: string[]; message: string }[];
        assert.deepEqual(finding?.reasonCodes, ['test.failed:add']);
        assert.match(finding?.message ?? '', /^Expected values to be strictly equal:\n\n6 !== 5\n/);
        assert.deepEqual(
          [right?.decision, right?.outcome, right?.verification, right?.stopReason, right?.attempts],
          ['stop', 'complete', 'verified', 'demand_passed', 2],
        );

        // What the ledger holds: one run of the client's two attempts, sealed complete / verified, signed.
        const open = await SqliteLedger.open({ database: ledger });
        try {
          const runs = await open.runs();
          assert.deepEqual(
            runs.map((row) => row.runId),
            [right?.runId],
          );
          const records = await open.records(right?.runId as string);
          const [first, seal] = [records[0], records.at(-1)];
          assert.equal(first?.type === 'run.started' ? first.data.proposer : first?.type, `mcp:${client.name}`);
          assert.equal(records.filter((record) => record.type === 'attempt').length, 2);
          assert.deepEqual(seal?.type === 'run.sealed' ? [seal.data.outcome, seal.data.verification, seal.data.attempts] : seal?.type, [
            'complete',
            'verified',
            2,
          ]);
        } finally {
          await open.close();
        }
        const verified = await redline(['ledger', 'verify', '--ledger', ledger]);
        assert.equal(verified.code, 0, verified.stderr);
        assert.equal(await readFile(path.join(ws, 'src/math.js'), 'utf8'), FIXED);
      } finally {
        await rm(path.dirname(file), { recursive: true, force: true });
      }
    });
  });
}
