import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempWorkspace } from './workspace.js';

/**
 * A mission file whose workspace `ws/` holds a broken `add` (src/math.js) and its node test, with a
 * test-runner check over it and the scope `src/**`; `mission` adds to (or replaces) its members, `files`
 * adds files to the workspace. Its ledger is the default one beside it.
 */
export async function mathMission(
  mission: Record<string, unknown> = {},
  files: Record<string, string> = {},
): Promise<{ file: string; ws: string; ledger: string }> {
  const dir = await tempWorkspace({
    'ws/src/math.js': 'export const add = (a, b) => a - b;\n',
    'ws/test/math.test.js':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/math.js';\ntest('add', () => assert.equal(add(2, 3), 5));\n",
    'ws/package.json': '{"type":"module"}\n',
    ...Object.fromEntries(Object.entries(files).map(([file, content]) => [`ws/${file}`, content])),
  });
  const file = path.join(dir, 'mission.json');
  await writeFile(
    file,
    JSON.stringify({
      id: 'math',
      goal: 'fix add',
      workspace: 'ws',
      scope: ['src/**'],
      checks: [{ name: 'tests', kind: 'test-runner', format: 'tap', command: 'node --test-reporter=tap test/math.test.js' }],
      ...mission,
    }),
  );
  return { file, ws: path.join(dir, 'ws'), ledger: path.join(dir, '.redline/redline.db') };
}
