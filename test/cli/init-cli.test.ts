import assert from 'node:assert/strict';
import { chmod, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadMission } from '../../src/mission/load.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline } from './redline.js';

describe('redline init', () => {
  it('never overwrites a mission.yaml without --force (exit 2), and replaces it with --force', async () => {
    const repo = await tempWorkspace({ 'mission.yaml': 'mine\n', 'src/a.py': 'x = 1\n' });
    const refused = await redline(['init', repo, '--yes', '--agent', 'none']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /mission\.yaml already exists; it is left as it is \(pass --force to overwrite it\)/);
    assert.equal(await readFile(path.join(repo, 'mission.yaml'), 'utf8'), 'mine\n');

    const forced = await redline(['init', repo, '--yes', '--force', '--agent', 'none']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.notEqual(await readFile(path.join(repo, 'mission.yaml'), 'utf8'), 'mine\n');
  });

  it('counts the cases of a node:test suite on the baseline, and names the agent found on PATH', async () => {
    const repo = await tempWorkspace({
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
      'src/add.js': 'exports.add = (a, b) => a + b;\n',
      'test/add.test.js':
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\ntest('adds', () => assert.equal(add(1, 2), 3));\ntest('adds zero', () => assert.equal(add(1, 0), 1));\n",
    });
    const bin = await tempWorkspace({ claude: '#!/bin/sh\n' });
    await chmod(path.join(bin, 'claude'), 0o755);
    const saved = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${saved ?? ''}`;
    let result;
    try {
      result = await redline(['init', repo]);
    } finally {
      process.env.PATH = saved;
    }
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /^node:test \(node [\d.]+\): 2 tests, 0 failing — the red line is in place; a failing test is what a task adds$/m,
    );
    assert.match(result.stdout, /^next: npx redline run mission\.yaml$/m);
    const mission = await loadMission(path.join(repo, 'mission.yaml'));
    assert.deepEqual(mission.proposer, { ...mission.proposer, kind: 'agent', preset: 'claude' });
    assert.deepEqual(mission.scope, ['src/**']);
  });

  it('a repository without a test runner gets a format check, and is told its runs end unverified', async () => {
    const repo = await tempWorkspace({ 'src/calc.py': 'def add(a, b):\n    return a + b\n' });
    const result = await redline(['init', repo, '--yes', '--agent', 'none']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /no test runner found: the mission gets a format check, and its runs will be unverified/);
    assert.match(result.stdout, /^format check: passes on the repository as it is; without a test runner runs end unverified$/m);
    assert.match(result.stdout, /^next: npx redline run mission\.yaml --agent codex\|claude\|qwen\|gemini \(or --proposer <program>\)$/m);
    const mission = await loadMission(path.join(repo, 'mission.yaml'));
    assert.deepEqual(
      mission.checks.map((check) => [check.name, check.kind, check.tier]),
      [['format', 'command', 'format']],
    );
    assert.deepEqual(mission.scope, ['src/**']);
  });

  it('says why the suite cannot run when the runner is declared but not installed (exit 1), the mission written', async () => {
    const repo = await tempWorkspace({
      'package.json': JSON.stringify({ scripts: { test: 'vitest' }, devDependencies: { vitest: '^3.2.0' } }),
      'src/a.js': 'export const a = 1;\n',
      'test/a.test.js': "import { it } from 'vitest';\n",
    });
    const result = await redline(['init', repo, '--yes', '--agent', 'codex', '--json']);
    assert.equal(result.code, 1, result.stderr);
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.deepEqual(summary.runners, [
      {
        runner: 'vitest',
        label: 'vitest ^3.2.0 (declared)',
        command: 'node_modules/.bin/vitest run --reporter=junit --outputFile=$REDLINE_REPORT',
        format: 'junit',
      },
    ]);
    assert.equal(summary.agent, 'codex');
    assert.match(String(summary.environment), /^required check tests could not run on the baseline \(process\.not_found\)/);
    const mission = await loadMission(path.join(repo, 'mission.yaml'));
    assert.deepEqual(mission.proposer, { ...mission.proposer, kind: 'agent', preset: 'codex' });
  });

  it('refuses an unknown --agent and a DIR that is no directory (exit 2)', async () => {
    const repo = await tempWorkspace({ 'src/a.py': '' });
    assert.equal((await redline(['init', repo, '--agent', 'cursor'])).code, 2);
    assert.equal((await redline(['init', path.join(repo, 'nope')])).code, 2);
  });
});
