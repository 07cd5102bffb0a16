import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { runCommand, type Output, type RunCommandOptions } from '../../src/cli/run-command.js';
import { firstAttemptIn } from '../helpers/records.js';
import { findBwrap } from '../../src/process/bwrap.js';
import type { AgentPreset } from '../../src/proposers/agent-presets/agent-preset.js';
import { agentCacheDir, cachedPrefix } from '../../src/proposers/agent-presets/find-cli.js';
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model/server.js';
import { mathMission } from '../helpers/math-mission.js';
import { tempDir } from '../helpers/workspace.js';

// The real-agent suite: one agent CLI per file, installed (pinned) into the agent cache when missing, driven
// by redline's preset against the project's scripted model server on loopback. Each file shares one
// installed CLI and one server between its tests.

const run = promisify(execFile);

/** What differs from one CLI to the next. */
export interface AgentSuite {
  readonly preset: AgentPreset;
  /** The model the preset passes. */
  readonly model: string;
  /** The base URL the CLI takes for the scripted server (with `/v1` for OpenAI clients). */
  readonly baseUrl: (server: ScriptedModel) => string;
  /** The variable the test's key is in. */
  readonly keyEnv: string;
  /** Extra arguments that let the CLI run shell commands outside redline's sandbox (its preset does not). */
  readonly shellArgs: readonly string[];
  /** Whether the meter speaks its protocol: the spend tests run. */
  readonly metered: boolean;
}

function capture(): Output & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, print: (line) => out.push(line), progress: (line) => err.push(line) };
}

interface Summary {
  runId: string;
  outcome: string;
  verification: string;
  stopReason: string;
  attempts: number;
  spent?: { inputTokens?: number; outputTokens?: number; costUsd?: number };
}

/** Installs the preset's pinned version into the cache unless it is there; the reason it cannot, else undefined. */
export async function install(preset: AgentPreset, cache: string): Promise<string | undefined> {
  const prefix = cachedPrefix(preset, cache);
  const bin = path.join(prefix, 'node_modules', '.bin', preset.bin);
  try {
    await run(bin, ['--version'], { timeout: 60_000 });
    return undefined;
  } catch {
    // Not installed yet (or broken): install it.
  }
  await mkdir(prefix, { recursive: true });
  await writeFile(path.join(prefix, 'package.json'), '{"private":true}\n');
  try {
    // From inside the folder: npm reads a spec that names an existing folder as that folder.
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `${preset.package}@${preset.version}`], {
      cwd: prefix,
      timeout: 600_000,
    });
    await run(bin, ['--version'], { timeout: 60_000 });
    return undefined;
  } catch (error) {
    return `${preset.package}@${preset.version} could not be installed into ${prefix}: ${(error as Error).message.split('\n')[0]}`;
  }
}

/** The pids of processes whose command line holds `marker`. */
async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const line = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (line.includes(marker)) found.push(Number(entry));
  }
  return found;
}

const FIXED = 'export const add = (a, b) => a + b;\n';
const SANDBOX = { sandbox: { kind: 'bwrap', network: 'proposer' } };

/** The tests every agent CLI passes: defines them in a `describe` of its own. */
export function agentSuite(suite: AgentSuite): void {
  const { preset } = suite;
  const hasBwrap = findBwrap() !== undefined;
  const saved = { ...process.env };
  let server: ScriptedModel | undefined;
  let home: string | undefined;
  let skip: string | undefined;

  describe(`the ${preset.name} preset with ${preset.package}@${preset.version}`, { timeout: 900_000 }, () => {
    before(async () => {
      const cache = agentCacheDir();
      skip = await install(preset, cache);
      if (skip !== undefined) return;
      // The agent writes its state under HOME: a private one, outside /tmp (Codex refuses its sandbox's helpers there).
      await mkdir(cache, { recursive: true });
      home = await mkdtemp(path.join(cache, '.test-home-'));
      process.env.REDLINE_AGENT_CACHE = cache;
      // The preset takes a CLI on PATH first: the suite tests the pinned version in the cache.
      process.env.PATH = (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter((dir) => !existsSync(path.join(dir, preset.bin)))
        .join(path.delimiter);
      process.env.HOME = home;
      process.env.REDLINE_SCRATCH = await tempDir('redline-agents-scratch-');
      process.env[suite.keyEnv] = 'sk-scripted-test-key';
      server = await startScriptedModel();
    });
    after(async () => {
      await server?.close();
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
      if (home !== undefined) await rm(home, { recursive: true, force: true });
    });

    /** Runs the math mission with the preset against the scripted model, the script given. */
    const runWith = async (
      steps: Parameters<ScriptedModel['setScript']>[0],
      { mission = {}, options = {} }: { mission?: Record<string, unknown>; options?: RunCommandOptions } = {},
    ): Promise<{ summary: Summary; ledger: string; output: ReturnType<typeof capture> }> => {
      const model = server as ScriptedModel;
      model.setScript(steps);
      const { file, ledger } = await mathMission({ budgets: { maxAttempts: 2 }, ...mission });
      const output = capture();
      const endpoint = options.meterUpstream === undefined ? { baseUrl: suite.baseUrl(model) } : {};
      await runCommand(
        file,
        { agent: preset.name, model: suite.model, ...endpoint, apiKeyEnv: suite.keyEnv, json: true, ...options },
        output,
      );
      assert.equal(output.out.length, 1, output.err.join('\n'));
      return { summary: JSON.parse(output.out[0] as string) as Summary, ledger, output };
    };
    const guard = (t: { skip: (message: string) => void }, needsBwrap = false): boolean => {
      if (skip !== undefined) t.skip(skip);
      else if (needsBwrap && !hasBwrap) t.skip('bubblewrap is not installed');
      else return true;
      return false;
    };

    it('fixes the bug: complete / verified, without its own sandbox in the way', async (t) => {
      if (!guard(t)) return;
      const { summary } = await runWith({ steps: [{ write: { path: 'src/math.js', content: FIXED } }] });
      assert.deepEqual([summary.outcome, summary.verification, summary.attempts], ['complete', 'verified', 1]);
    });

    it('fixes the bug under redline’s bubblewrap sandbox: complete / verified', async (t) => {
      if (!guard(t, true)) return;
      const { summary } = await runWith({ steps: [{ write: { path: 'src/math.js', content: FIXED } }] }, { mission: SANDBOX });
      assert.deepEqual([summary.outcome, summary.verification, summary.attempts], ['complete', 'verified', 1]);
    });

    it('an edit outside the scope stops the run: blocked / scope_violation', async (t) => {
      if (!guard(t)) return;
      const { summary } = await runWith({
        steps: [{ write: { path: 'test/math.test.js', content: "import { test } from 'node:test';\ntest('add', () => {});\n" } }],
      });
      assert.deepEqual([summary.outcome, summary.stopReason, summary.attempts], ['blocked', 'scope_violation', 1]);
    });

    it('an agent that edits nothing: proposer.no_change, and the run stops on no_change', async (t) => {
      if (!guard(t)) return;
      const { summary, ledger } = await runWith({ steps: [], done: 'nothing to do' });
      assert.deepEqual([summary.outcome, summary.stopReason, summary.attempts], ['failed_with_evidence', 'no_change', 2]);
      const attempt = await firstAttemptIn(ledger, summary.runId);
      const [finding] = attempt.findings as { reasonCodes: string[] }[];
      assert.deepEqual(finding?.reasonCodes, ['proposer.no_change']);
      assert.ok(
        (attempt.account as { transcript?: { text: string } }).transcript?.text.includes('nothing to do'),
        'the transcript is kept',
      );
    });

    for (const sandboxed of [false, true])
      it(`nothing the agent's shell tool starts outlives the attempt (nohup, setsid, env -i setsid)${sandboxed ? ' under bubblewrap' : ''}`, async (t) => {
        if (!guard(t, sandboxed)) return;
        const marker = `redline-escape-${preset.name}-${process.pid}-${sandboxed ? 'bwrap' : 'plain'}`;
        const sleeper = (n: number): string => `${process.execPath} -e 'setTimeout(() => {}, 300000)' ${marker}-${n}`;
        const { summary } = await runWith(
          {
            steps: [
              { shell: `nohup ${sleeper(1)} > /dev/null 2>&1 &` },
              { shell: `setsid ${sleeper(2)} > /dev/null 2>&1 < /dev/null &` },
              { shell: `env -i setsid sh -c "${sleeper(3)} > /dev/null 2>&1 &"` },
              // What runs now, as the agent sees it: its answer goes to the model in the next call.
              { shell: `sleep 1; cat /proc/[0-9]*/cmdline | tr '\\0' ' ' | grep -o '${marker}-[0-9]' | sort -u | tr '\\n' ,` },
              { write: { path: 'src/math.js', content: FIXED } },
            ],
          },
          { mission: sandboxed ? SANDBOX : {}, options: sandboxed ? {} : { agentArg: suite.shellArgs } },
        );
        assert.deepEqual([summary.outcome, summary.attempts], ['complete', 1]);
        // They were running while the agent ran — the `env -i setsid` one at least, which only a PID namespace
        // ends (some CLIs end a command's group or session themselves): the listing reached the model.
        const seen = JSON.stringify((server as ScriptedModel).calls.at(-1)?.body ?? {});
        const listed = new RegExp(`(?:${marker}-\\d,)+`).exec(seen)?.[0] ?? seen.match(/.{200}sort -u.{400}/)?.[0];
        assert.match(listed ?? '', new RegExp(`${marker}-3,`), `the background processes were started: ${listed}`);
        assert.deepEqual(await processesWith(marker), [], 'no background process survived the attempt');
      });

    it('an unreachable model endpoint blocks the run at its first attempt: blocked / environment, the reason in the finding', async (t) => {
      if (!guard(t)) return;
      const started = Date.now();
      const { summary, ledger } = await runWith(
        { steps: [] },
        { mission: { budgets: { maxAttempts: 3 } }, options: { baseUrl: suite.baseUrl({ url: 'http://127.0.0.1:9' } as ScriptedModel) } },
      );
      assert.deepEqual([summary.outcome, summary.stopReason, summary.attempts], ['blocked', 'environment', 1]);
      const attempt = await firstAttemptIn(ledger, summary.runId);
      const [finding] = attempt.findings as { reasonCodes: string[]; message: string }[];
      assert.deepEqual(finding?.reasonCodes, ['proposer.environment']);
      assert.match(finding?.message ?? '', /the agent cannot reach its model endpoint: .+/);
      assert.ok(Date.now() - started < 120_000, 'the unreachable endpoint did not cost minutes');
    });

    it('a key the endpoint refuses blocks the run at its first attempt: blocked / environment', async (t) => {
      if (!guard(t)) return;
      const { summary, ledger } = await runWith({ steps: [], refuse: 401 }, { mission: { budgets: { maxAttempts: 3 } } });
      assert.deepEqual([summary.outcome, summary.stopReason, summary.attempts], ['blocked', 'environment', 1]);
      const attempt = await firstAttemptIn(ledger, summary.runId);
      const [finding] = attempt.findings as { message: string }[];
      assert.match(finding?.message ?? '', /the model endpoint refused the agent's credentials|cannot reach/);
    });

    if (suite.metered)
      it('a looping agent is ended mid-attempt by maxCostUsd through the meter: budget_cost, the spend recorded', async (t) => {
        if (!guard(t)) return;
        const model = server as ScriptedModel;
        // Each answer reports 1,000 prompt and 50 output tokens; the prices make each call cost $0.01.
        const prices = path.join(await tempDir('redline-agents-prices-'), 'prices.json');
        await writeFile(prices, JSON.stringify({ [suite.model]: { input: 5, output: 100 } }));
        const { summary, ledger } = await runWith(
          { steps: [{ shell: 'echo still working' }], loop: true },
          {
            mission: { budgets: { maxAttempts: 3, maxCostUsd: 0.035 } },
            options: { meterUpstream: suite.baseUrl(model), meterPrices: prices },
          },
        );
        assert.deepEqual([summary.outcome, summary.stopReason, summary.attempts], ['failed_with_evidence', 'budget_cost', 1]);
        assert.ok((summary.spent?.costUsd ?? 0) >= 0.035, `the spend is recorded: ${JSON.stringify(summary.spent)}`);
        const attempt = await firstAttemptIn(ledger, summary.runId);
        const [finding] = attempt.findings as { reasonCodes: string[] }[];
        assert.deepEqual(finding?.reasonCodes, ['proposer.budget_spent']);
        const meter = (attempt.account as { meter?: { ended?: string } }).meter;
        assert.equal(meter?.ended, 'budget_cost');
      });
  });
}
