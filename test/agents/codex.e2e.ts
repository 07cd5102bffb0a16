import { codexPreset } from '../../src/proposers/agent-presets/codex.js';
import { agentSuite } from './agent-suite.js';

agentSuite({
  preset: codexPreset,
  model: 'gpt-5',
  baseUrl: (server) => `${server.url}/v1`,
  keyEnv: 'REDLINE_TEST_OPENAI_KEY',
  // Codex's own sandbox ends what its commands leave running: without it, redline alone must.
  shellArgs: ['--sandbox', 'danger-full-access'],
  metered: true,
});
