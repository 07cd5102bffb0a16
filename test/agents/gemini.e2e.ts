import { geminiPreset } from '../../src/proposers/agent-presets/gemini.js';
import { agentSuite } from './agent-suite.js';

agentSuite({
  preset: geminiPreset,
  model: 'gemini-2.5-pro',
  baseUrl: (server) => server.url,
  keyEnv: 'REDLINE_TEST_GEMINI_KEY',
  // auto_edit refuses shell commands: the test lets them run.
  shellArgs: ['--approval-mode', 'yolo'],
  // The meter does not speak the Gemini API.
  metered: false,
});
