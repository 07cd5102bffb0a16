import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline } from './redline.js';

// The red line as a user meets it: two node:test files, one test failing at the baseline, and candidates
// that make the tests vanish instead of passing them. Through the CLI, as `redline run` runs a mission file.

const ADD = 'export const add = (a, b) => (b === 0 ? 0 : a + b);\n';
const FIXED = 'export const add = (a, b) => a + b;\n';
const test = (name: string, call: string, expected: number): string =>
  `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest(${JSON.stringify(name)}, () => assert.equal(${call}, ${expected}));\n`;

const dir = await tempWorkspace({
  'ws/package.json': '{"type":"module"}\n',
  'ws/src/add.js': ADD,
  'ws/test/a.test.js': test('adds', 'add(1, 2)', 3),
  'ws/test/b.test.js': test('adds zero', 'add(1, 0)', 1),
});
after(() => rm(dir, { recursive: true, force: true }));

/** Runs a mission whose replayed agent proposes `proposals` in turn, and returns the JSON summary and the ledger's story. */
async function run(id: string, proposals: readonly Record<string, string>[], check: Record<string, unknown> = {}) {
  await writeFile(path.join(dir, `${id}.json`), JSON.stringify(proposals.map((files) => ({ files }))));
  const mission = {
    id,
    goal: 'make adds zero pass',
    workspace: 'ws',
    scope: ['src/**'],
    budgets: { maxAttempts: proposals.length },
    checks: [{ name: 'tests', kind: 'test-runner', format: 'tap', command: 'node --test --test-reporter=tap test/', ...check }],
    proposer: { kind: 'replay', file: `${id}.json` },
  };
  await writeFile(path.join(dir, `${id}.mission.json`), JSON.stringify(mission));
  const ledger = path.join(dir, `${id}.db`);
  const ran = await redline(['run', path.join(dir, `${id}.mission.json`), '--ledger', ledger, '--json', '--no-review']);
  const summary = JSON.parse(ran.stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
  const shown = await redline(['ledger', 'show', String(summary['runId']), '--ledger', ledger]);
  return { summary, story: shown.stdout };
}

describe('the red line cannot shrink', () => {
  it('a candidate that exits at import is not verified, and the findings name both baseline tests', async () => {
    const { summary, story } = await run('exit-at-import', [{ 'src/add.js': `process.exit(0);\n${FIXED}` }]);
    assert.notEqual(summary['verification'], 'verified', JSON.stringify(summary));
    assert.notEqual(summary['outcome'], 'complete');
    assert.match(story, /baseline:\n {4}tests: 2 tests \(1 pass, 1 fail, 0 skip, 0 todo\)/);
    assert.match(story, /test\.missing:adds\b/);
    assert.match(story, /test\.missing:adds zero/);
  });

  it('the real fix is verified, with the inventory recorded', async () => {
    const { summary } = await run('real-fix', [{ 'src/add.js': FIXED }]);
    assert.equal(summary['outcome'], 'complete');
    assert.equal(summary['verification'], 'verified');
  });

  it('allowMissing lets a named test go, and the run is at most sampled', async () => {
    const { summary, story } = await run(
      'allowed',
      [{ 'src/add.js': `if (process.argv.some((arg) => arg.endsWith('a.test.js'))) process.exit(0);\n${FIXED}` }],
      { allowMissing: ['adds'] },
    );
    assert.equal(summary['outcome'], 'complete', JSON.stringify(summary));
    assert.equal(summary['verification'], 'sampled');
    assert.deepEqual(summary['allowedMissing'], ['adds']);
    assert.match(story, /sealed complete \/ sampled/);
  });
});
