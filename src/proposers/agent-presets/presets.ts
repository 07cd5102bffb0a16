import type { AgentPreset } from './agent-preset.js';
import { claudePreset } from './claude.js';
import { codexPreset } from './codex.js';
import { geminiPreset } from './gemini.js';
import { qwenPreset } from './qwen.js';

/** The agent presets by name: `redline run --agent <name>` (docs/agents.md#presets). */
export const AGENT_PRESETS: Readonly<Record<string, AgentPreset>> = Object.freeze({
  codex: codexPreset,
  claude: claudePreset,
  qwen: qwenPreset,
  gemini: geminiPreset,
});

/** The preset an `--agent` value names (the bare name, nothing else), or undefined for a command line. */
export function presetNamed(agent: string): AgentPreset | undefined {
  return Object.hasOwn(AGENT_PRESETS, agent) ? AGENT_PRESETS[agent] : undefined;
}
