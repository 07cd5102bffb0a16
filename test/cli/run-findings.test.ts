import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline } from './redline.js';

// A real agent process proposes, a real `node --test` checks: what reaches the terminal and the review queue.
const AGENT = `node -e "process.stdout.write(JSON.stringify({files:{'src/add.js':'<think>times, surely</think>module.exports = (a, b) => a * b;\\n'}}))"`;

async function addMission(): Promise<{ file: string; db: string }> {
  const dir = await tempWorkspace({
    'ws/src/add.js': 'module.exports = (a, b) => a - b;\n',
    'ws/test/add.test.js':
      "const test = require('node:test');\nconst assert = require('node:assert');\nconst add = require('../src/add.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
  });
  const file = path.join(dir, 'mission.json');
  await writeFile(
    file,
    JSON.stringify({
      id: 'add',
      goal: 'make add add',
      workspace: 'ws',
      scope: ['src/**'],
      checks: [{ name: 'tests', kind: 'test-runner', command: 'node --test --test-reporter=tap', format: 'tap' }],
      stopPolicy: { guards: [{ humanGate: { n: 1 } }] },
    }),
  );
  return { file, db: path.join(dir, 'ledger.db') };
}

describe('redline run: findings and briefs', () => {
  it('prints the baseline and each attempt with every check’s duration, and the brief lists the failing findings without thinking tokens', async () => {
    const { file, db } = await addMission();
    const run = await redline(['run', file, '--proposer', AGENT, '--ledger', db, '--review']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /^ {2}baseline: 1 failing: test\.failed:adds · scope \d+ ms, tests \d+(?:\.\d)? m?s$/m);
    assert.match(run.stderr, /^ {4}tests: 1 test \(0 pass, 1 fail, 0 skip, 0 todo\)$/m);
    // The file failed to load: its test point stands in for the baseline's `adds`, which did not run.
    assert.match(
      run.stderr,
      /^ {2}attempt 1: 3 failing: test\.failed:test\/add\.test\.js, test\.missing:adds, … · scope \d+ ms, tests \d+(?:\.\d)? m?s$/m,
    );
    const list = JSON.parse((await redline(['review', 'list', '--json', '--ledger', db])).stdout.trim()) as { item: { id: string } };
    const show = await redline(['review', 'show', list.item.id, '--ledger', db]);
    assert.equal(show.code, 0, show.stderr);
    const brief = show.stdout;
    // The leaked tokens broke the file: the loader's error, pointing at them, is what the reviewer reads.
    assert.match(
      brief,
      /^failing \(3\)\n {2}tests {2}test\.failed:test\/add\.test\.js at test\/add\.test\.js:1\n {4}src\/add\.js:1\n {4}<think>times, surely<\/think>module/m,
    );
    assert.match(brief, /^ {4}SyntaxError: Unexpected token '<'$/m);
    assert.match(brief, /^stripped {2}1 × <think>\[\\s\\S\]\*\?<\/think> from the final output \(thinking-token leakage\)$/m);
    assert.match(brief, /^ {2}\+\+\+ src\/add\.js\n {2}.*module\.exports = \(a, b\) => a \* b;$/m);
    assert.doesNotMatch(brief.slice(brief.indexOf('\nfinal output\n')), /think/);
    assert.doesNotMatch(run.stderr + brief.slice(0, brief.indexOf('raw trace')), /redline-runs|\/tmp\//);
  });
});
