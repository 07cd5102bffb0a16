import { commandIdentity } from '../core/command-identity.js';
import { agentProposer } from './agent-proposer.js';
import { shellWord, type AgentPreset, type PresetEndpoint } from './agent-presets/agent-preset.js';
import { agentCacheDir, cachedPrefix, findAgentCli } from './agent-presets/find-cli.js';
import type { AgentMeterOptions } from './agent-spend.js';
import type { Proposer } from './proposer.js';

export interface PresetProposerOptions {
  readonly preset: AgentPreset;
  /** The model, passed to the CLI's model option. @default the CLI's own default */
  readonly model?: string;
  /** The model endpoint's base URL as the CLI's SDK takes it (`…/v1` for OpenAI's, the host for Anthropic's and Gemini's). */
  readonly baseUrl?: string;
  /** The variable holding the API key, when it is not the one the CLI reads (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`). */
  readonly apiKeyEnv?: string;
  /** More arguments for the CLI, after the preset's own (a later option wins in these CLIs). */
  readonly args?: readonly string[];
  /** Run the model calls through a metering endpoint standing in for this upstream (in place of `baseUrl`). */
  readonly meter?: AgentMeterOptions;
  /** The program to run. @default the CLI on PATH, else the pinned version in the agent cache */
  readonly program?: string;
  /** Per-attempt limit. @default 600000 */
  readonly timeoutMs?: number;
  /** Variables added to the agent's environment. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The identity of a preset in a run's plan: its name, the model and the extra arguments (as a command line's
 * identity: no ports, no temporary paths) — never the endpoint, which may change from run to run.
 */
export function presetIdentity({
  preset,
  model,
  args = [],
}: {
  readonly preset: AgentPreset;
  readonly model?: string | undefined;
  readonly args?: readonly string[];
}): string {
  const words = [`preset:${preset.name}`, ...(model === undefined ? [] : [`--model ${shellWord(model)}`]), ...args.map(shellWord)];
  return commandIdentity(words.join(' '));
}

/**
 * An agent proposer running one of the agent presets (docs/agents.md#presets): the CLI's command line for the
 * attempt — its unsandboxed form, or its form for redline's bubblewrap sandbox when the run has one — with the
 * endpoint in `$REDLINE_AGENT_BASE_URL` (or the meter's), its transcript the CLI's JSON events, and its
 * environment failures (endpoint out of reach, key refused) ending the agent and blocking the run. Recorded as
 * `agent:<preset>`; its plan identity is {@link presetIdentity}.
 * @throws {TypeError} when the CLI is found neither on PATH nor in the agent cache, for both an endpoint and a
 * meter, or for a meter on a preset whose protocol the meter does not speak.
 */
export async function presetProposer(options: PresetProposerOptions): Promise<Proposer> {
  const { preset, model, baseUrl, apiKeyEnv, args = [], meter, timeoutMs, env = {} } = options;
  if (baseUrl !== undefined && meter !== undefined)
    throw new TypeError(
      `Expected one of a base URL or a meter upstream for the ${preset.name} preset, got both (the meter stands in for the base URL)`,
    );
  if (meter !== undefined && !preset.metered)
    throw new TypeError(`Expected a preset whose protocol the meter speaks (codex, claude, qwen) with a meter, got ${preset.name}`);
  const program = options.program ?? (await findAgentCli(preset));
  if (program === undefined)
    throw new TypeError(
      `Expected the ${preset.bin} CLI on PATH or in ${cachedPrefix(preset, agentCacheDir())} (npm install --prefix <that folder> ${preset.package}@${preset.version}), got neither`,
    );
  const endpoint: PresetEndpoint | undefined = meter !== undefined ? 'meter' : baseUrl !== undefined ? 'base-url' : undefined;
  const settings = {
    ...(model === undefined ? {} : { model }),
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
    args,
  };
  const shared = {
    name: `agent:${preset.name}`,
    planName: presetIdentity({ preset, model, args }),
    errors: preset.errorIn,
    env: { ...env, ...(baseUrl === undefined ? {} : { REDLINE_AGENT_BASE_URL: baseUrl }) },
    ...(meter === undefined ? {} : { meter }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
  const plain = agentProposer({ ...shared, command: preset.line(shellWord(program), { ...settings, sandboxed: false }) });
  const sandboxed = agentProposer({ ...shared, command: preset.line(shellWord(program), { ...settings, sandboxed: true }) });
  return {
    name: plain.name,
    capabilities: plain.capabilities,
    ...(plain.identity === undefined ? {} : { identity: plain.identity }),
    propose: (request, context) => (context.sandbox === undefined ? plain : sandboxed).propose(request, context),
  };
}
