import { claudePreset } from '../../src/proposers/agent-presets/claude.js';
import { agentSuite } from './agent-suite.js';

agentSuite({
  preset: claudePreset,
  model: 'claude-sonnet-4-5',
  baseUrl: (server) => server.url,
  keyEnv: 'REDLINE_TEST_ANTHROPIC_KEY',
  // acceptEdits allows edits, not every shell command: the test allows Bash too.
  shellArgs: ['--allowedTools', 'Bash'],
  metered: true,
});
