import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { answerMission } from '../helpers/answer-mission.js';
import { tempDir, tempWorkspace } from '../helpers/workspace.js';
import { redline, ROOT } from './redline.js';

// `redline run --agent <preset>` with a stand-in CLI in the agent cache (the real CLIs run in test/agents/*.e2e.ts):
// the preset's plan identity, and an environment failure that blocks the run at its first attempt.

/**
 * A stand-in `codex`: it prints its arguments (into its transcript, as Codex's events go), then, pointed at port 9, reports the connection failure
 * Codex 0.169 reports (and keeps retrying, as Codex does); else it writes a wrong answer, a new one each attempt.
 */
const STAND_IN = `#!/bin/sh
for arg in "$@"; do [ "$arg" = "$REDLINE_PROMPT" ] && arg='$REDLINE_PROMPT'; printf 'arg: %s\\n' "$arg"; done
case "$REDLINE_AGENT_BASE_URL" in
  *:9/*)
    echo '{"type":"thread.started","thread_id":"t"}'
    echo '{"type":"item.completed","item":{"type":"command_execution","aggregated_output":"curl: Connection refused"}}'
    echo '{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}'
    exec sleep 60 ;;
  *:8/*)
    echo '{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}'
    exit 1 ;;
esac
printf '1%s\\n' "$REDLINE_ATTEMPT" > src/answer.txt
echo '{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":1}}'
`;

const saved = process.env.REDLINE_AGENT_CACHE;
const savedPath = process.env.PATH;
before(async () => {
  const cache = await tempDir('redline-agent-cache-');
  const bin = path.join(cache, '@openai/codex@0.169.0/node_modules/.bin');
  await mkdir(bin, { recursive: true });
  await writeFile(path.join(bin, 'codex'), STAND_IN);
  await chmod(path.join(bin, 'codex'), 0o755);
  process.env.REDLINE_AGENT_CACHE = cache;
  // No codex on PATH: the cache's is the one found.
  process.env.PATH = (savedPath ?? '')
    .split(path.delimiter)
    .filter((dir) => !dir.includes('codex'))
    .join(path.delimiter);
});
after(() => {
  if (saved === undefined) delete process.env.REDLINE_AGENT_CACHE;
  else process.env.REDLINE_AGENT_CACHE = saved;
  process.env.PATH = savedPath;
});

async function gatedMission(): Promise<{ file: string; ledger: string }> {
  const dir = await tempWorkspace({});
  const file = await answerMission(dir, 'gated', { budgets: { maxAttempts: 6 }, stopPolicy: { guards: [{ humanGate: { n: 2 } }] } });
  return { file, ledger: path.join(dir, 'ledger.db') };
}

const runIdOf = (stdout: string): string => (JSON.parse(stdout) as { runId: string }).runId;

describe('redline run --agent <preset>', () => {
  it('the plan is the preset, its model and its extra arguments: a rerun after a thrash with only a new endpoint port is refused, another model is another plan', async () => {
    const { file, ledger } = await gatedMission();
    const run = (port: number, model = 'gpt-5'): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      redline([
        'run',
        file,
        '--agent',
        'codex',
        '--model',
        model,
        '--base-url',
        `http://127.0.0.1:${port}/v1`,
        '--json',
        '--ledger',
        ledger,
      ]);
    const first = await run(41237);
    assert.equal(first.code, 1, first.stderr);
    assert.equal(JSON.parse(first.stdout).stopReason, 'human_gate');
    const old = runIdOf(first.stdout);

    const exported = await redline(['ledger', 'export', '--format', 'jsonl', '--run', old, '--ledger', ledger]);
    const started = JSON.parse((JSON.parse(exported.stdout.split('\n')[1] as string) as { body: string }).body) as {
      data: { proposer: string; plan: { proposer: unknown } };
    };
    assert.equal(started.data.proposer, 'agent:codex');
    assert.deepEqual(started.data.plan.proposer, { kind: 'agent', name: 'preset:codex --model gpt-5', template: 'redline.agent-prompt/1' });
    assert.ok(!JSON.stringify(started).includes('41237'), 'the endpoint is not part of the run or its plan');

    const again = await run(5555);
    assert.equal(again.code, 2, again.stdout);
    assert.match(again.stderr, new RegExp(`refused to rerun the same plan on mission gated: run ${old} ran plan`));

    const other = await run(5555, 'gpt-5-mini');
    assert.equal(other.code, 1, other.stderr);
    assert.equal(JSON.parse(other.stdout).stopReason, 'human_gate');
  });

  it('runs the CLI with the tested flags, the endpoint and the key by variable, and an --agent-arg in place of the flag it names', async () => {
    const { file } = await gatedMission();
    const ledger = path.join(path.dirname(file), 'args.db');
    const result = await redline([
      'run',
      file,
      '--agent',
      'codex',
      '--base-url',
      'http://127.0.0.1:41237/v1',
      '--api-key-env',
      'MY_KEY',
      '--agent-arg',
      '--sandbox',
      '--agent-arg',
      'danger-full-access',
      '--json',
      '--ledger',
      ledger,
    ]);
    assert.equal(result.code, 1, result.stderr);
    const { runId } = JSON.parse(result.stdout) as { runId: string };
    const shown = await redline(['ledger', 'show', runId, '--json', '--ledger', ledger]);
    const attempt = shown.stdout
      .split('\n')
      .map((line) =>
        line === '' ? undefined : (JSON.parse(line) as { type: string; data: { account?: { transcript?: { text: string } } } }),
      )
      .find((record) => record?.type === 'attempt');
    const args = (attempt?.data.account?.transcript?.text ?? '')
      .split('\n')
      .filter((line) => line.startsWith('arg: '))
      .map((line) => line.slice(5));
    assert.deepEqual(args, [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '-c',
      'model_provider=redline',
      '-c',
      'model_providers.redline={name="redline",base_url="http://127.0.0.1:41237/v1",env_key="MY_KEY",wire_api="responses",request_max_retries=1,stream_max_retries=1}',
      '--sandbox',
      'danger-full-access',
      '$REDLINE_PROMPT',
    ]);
  });

  it('an agent whose output shows its endpoint out of reach is ended, and the run blocks at attempt 1: blocked / environment', async () => {
    const { file, ledger } = await gatedMission();
    const started = Date.now();
    const result = await redline(['run', file, '--agent', 'codex', '--base-url', 'http://127.0.0.1:9/v1', '--json', '--ledger', ledger]);
    assert.equal(result.code, 1, result.stderr);
    const summary = JSON.parse(result.stdout) as { runId: string; outcome: string; stopReason: string; attempts: number };
    assert.deepEqual([summary.outcome, summary.stopReason, summary.attempts], ['blocked', 'environment', 1]);
    assert.ok(Date.now() - started < 30_000, 'the agent was ended, not waited for');
    const shown = await redline(['ledger', 'show', summary.runId, '--ledger', ledger]);
    assert.match(shown.stdout, /error {3}proposer: proposer\.environment/);
    assert.match(shown.stdout, /the agent: ended on a failure of its environment/);
    assert.match(shown.stdout, /guard proposerEnvironment: environment — the agent failed on its environment at attempt 1/);
    const records = await redline(['ledger', 'show', summary.runId, '--json', '--ledger', ledger]);
    // The reason is the agent's own message; a tool's output saying "Connection refused" was not taken for it.
    assert.match(
      records.stdout,
      /"message":"the agent cannot reach its model endpoint: Reconnecting\.\.\. waiting for network \(Connection failed: error sending request\)"/,
    );
  });

  it('an agent that exits non-zero on an error of its own: the finding says its message, and the run goes on', async () => {
    const { file, ledger } = await gatedMission();
    const result = await redline(['run', file, '--agent', 'codex', '--base-url', 'http://127.0.0.1:8/v1', '--json', '--ledger', ledger]);
    const summary = JSON.parse(result.stdout) as { runId: string; stopReason: string; attempts: number };
    assert.notEqual(summary.stopReason, 'environment');
    assert.ok(summary.attempts >= 2, 'not blocked at the first attempt');
    const records = await redline(['ledger', 'show', summary.runId, '--json', '--ledger', ledger]);
    assert.match(records.stdout, /"message":"the agent exited 1: stream disconnected before completion"/);
  });

  it("a mission's proposer can name the preset: the same CLI, flags and plan; a command and a preset together are refused", async () => {
    const dir = await tempWorkspace({});
    const proposer = {
      kind: 'agent',
      preset: 'codex',
      model: 'gpt-5',
      baseUrl: 'http://127.0.0.1:41237/v1',
      args: ['--sandbox', 'danger-full-access'],
    };
    const file = await answerMission(dir, 'preset', { budgets: { maxAttempts: 1 }, proposer });
    const ledger = path.join(dir, 'ledger.db');
    const result = await redline(['run', file, '--json', '--ledger', ledger]);
    assert.equal(result.code, 1, result.stderr);
    const { runId } = JSON.parse(result.stdout) as { runId: string };
    const exported = await redline(['ledger', 'export', '--format', 'jsonl', '--run', runId, '--ledger', ledger]);
    const started = JSON.parse((JSON.parse(exported.stdout.split('\n')[1] as string) as { body: string }).body) as {
      data: { proposer: string; plan: { proposer: unknown } };
    };
    assert.equal(started.data.proposer, 'agent:codex');
    assert.deepEqual(started.data.plan.proposer, {
      kind: 'agent',
      name: 'preset:codex --model gpt-5 --sandbox danger-full-access',
      template: 'redline.agent-prompt/1',
    });

    const both = await answerMission(dir, 'both', { proposer: { kind: 'agent', preset: 'codex', command: 'codex exec' } });
    const refused = await redline(['run', both, '--ledger', ledger]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /an agent proposer names exactly one of command or preset/);
    const stray = await answerMission(dir, 'stray', { proposer: { kind: 'agent', command: 'codex exec', model: 'gpt-5' } });
    assert.match((await redline(['run', stray, '--ledger', ledger])).stderr, /model goes with a preset/);
  });

  it('refuses what a preset cannot do: a command-line --agent with --model, a meter for gemini, a CLI found nowhere', async () => {
    const { file } = await gatedMission();
    const raw = await redline(['run', file, '--agent', 'sh -c true', '--model', 'gpt-5']);
    assert.equal(raw.code, 2);
    assert.match(raw.stderr, /Expected a preset \(codex, claude, qwen, gemini\) for --agent with --agent-arg, --model or --base-url/);
    const gemini = await redline(['run', file, '--agent', 'gemini', '--meter-upstream', 'http://127.0.0.1:9']);
    assert.equal(gemini.code, 2);
    assert.match(gemini.stderr, /the meter speaks \(codex, claude, qwen\)/);
    const missing = await redline(['run', file, '--agent', 'claude']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Expected the claude CLI on PATH or in .*@anthropic-ai\/claude-code@2\.1\.328/);
  });

  it('is in redline run --help and docs/agents.md', async () => {
    const help = await redline(['run', '--help']);
    assert.match(help.stdout, /--agent <preset\|command>/);
    assert.match(help.stdout, /--agent-arg <arg>/);
    const docs = await readFile(path.join(ROOT, 'docs/agents.md'), 'utf8');
    for (const name of ['codex', 'claude', 'qwen', 'gemini']) assert.match(docs, new RegExp(`--agent ${name}\\b`));
  });
});
