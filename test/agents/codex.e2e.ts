import { codexPreset } from '../../src/proposers/agent-presets/codex.js';
import { agentSuite } from './agent-suite.js';

agentSuite({
  preset: codexPreset,
  model: 'gpt-5',
  baseUrl: (server) => `${server.url}/v1`,
  keyEnv: 'REDLINE_TEST_OPENAI_KEY',
  // Codex's workspace-write sandbox runs its commands, background ones included.
  shellArgs: [],
  metered: true,
});
