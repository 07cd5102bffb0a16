import { qwenPreset } from '../../src/proposers/agent-presets/qwen.js';
import { agentSuite } from './agent-suite.js';

agentSuite({
  preset: qwenPreset,
  model: 'qwen3-coder-plus',
  baseUrl: (server) => `${server.url}/v1`,
  keyEnv: 'REDLINE_TEST_QWEN_KEY',
  // auto-edit refuses shell commands: the test lets them run.
  shellArgs: ['--approval-mode', 'yolo'],
  metered: true,
});
