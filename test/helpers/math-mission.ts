import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempWorkspace } from './workspace.js';

/**
 * A mission file `<dir>/mission.json` over the workspace `<dir>/ws/`, whose `add` subtracts: its one check
 * runs the TAP test of `add` (with `command`, when given), in scope `src/**`, three attempts, no stop policy.
 * `test/fixtures/agents/sed-agent.sh` fixes it at its second attempt.
 */
export async function mathMission({ command = 'node --test-reporter=tap test/math.test.js' }: { command?: string } = {}): Promise<{
  file: string;
  ws: string;
}> {
  const dir = await tempWorkspace({
    'ws/src/math.js': 'export const add = (a, b) => a - b;\n',
    'ws/src/obsolete.js': 'export {};\n',
    'ws/test/math.test.js':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/math.js';\ntest('add', () => assert.equal(add(2, 3), 5));\n",
    'ws/package.json': '{"type":"module"}\n',
  });
  const file = path.join(dir, 'mission.json');
  await writeFile(
    file,
    JSON.stringify({
      id: 'math',
      goal: 'fix add',
      workspace: 'ws',
      scope: ['src/**'],
      budgets: { maxAttempts: 3 },
      stopPolicy: { guards: [] },
      checks: [{ name: 'tests', kind: 'test-runner', format: 'tap', command }],
    }),
  );
  return { file, ws: path.join(dir, 'ws') };
}
