import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadMission } from '../../src/mission/load.js';
import { redline } from '../cli/redline.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { fixtureRepo } from './fixture-repo.js';

// `redline init` on small repositories, one per test runner, with that runner installed from the npm registry
// (pinned, cached across runs): the mission it writes parses the suite's cases on the baseline, and a run on a
// seeded bug ends verified by that mission as written.

interface Case {
  readonly fixture: string;
  /** The runner's label as init prints it. */
  readonly label: RegExp;
  /** The source file the bug is seeded in, and the line it breaks. */
  readonly source: string;
  readonly correct: string;
  readonly buggy: string;
}

const JS = { source: 'src/sum.js', correct: 'total += number;', buggy: 'total += number + 1;' };
const CASES: readonly Case[] = [
  { fixture: 'node-test', label: /^node:test \(node /, ...JS },
  { fixture: 'mocha', label: /^mocha 10\.8\.2:/, ...JS },
  { fixture: 'tape', label: /^tape 5\.9\.0:/, ...JS },
  { fixture: 'tap', label: /^tap 21\.1\.0:/, ...JS },
  { fixture: 'vitest', label: /^vitest 3\.2\.4:/, ...JS },
  { fixture: 'jest', label: /^jest 29\.7\.0:/, ...JS },
  { fixture: 'ava', label: /^ava 6\.1\.3:/, ...JS },
  { fixture: 'pytest', label: /^pytest \S+:/, source: 'calc/__init__.py', correct: 'result += number', buggy: 'result += number + 1' },
];

const pytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

/** A proposer speaking redline.proposer/1 that writes `content` to `file`, whatever it is told. */
async function fixingProposer(file: string, content: string): Promise<string> {
  const dir = await tempWorkspace({
    'propose.mjs': `process.stdin.resume();\nprocess.stdin.on('end', () => process.stdout.write(JSON.stringify({ files: { ${JSON.stringify(file)}: ${JSON.stringify(content)} } })));\n`,
  });
  return `node ${path.join(dir, 'propose.mjs')}`;
}

describe('redline init on a repository of each test runner', { concurrency: 1 }, () => {
  for (const item of CASES)
    it(
      `${item.fixture}: the baseline parses the suite, and a seeded bug's fix ends complete / verified`,
      {
        skip: item.fixture === 'pytest' && !pytest ? '`python3 -m pytest` does not run here' : false,
        timeout: 600_000,
      },
      async () => {
        const repo = await fixtureRepo(item.fixture);
        const init = await redline(['init', repo, '--yes', '--agent', 'none']);
        assert.equal(init.code, 0, init.stdout + init.stderr);
        const [line = ''] = init.stdout.split('\n');
        assert.match(line, item.label);
        assert.match(line, /: 3 tests, 0 failing — the red line is in place; a failing test is what a task adds$/);
        const file = path.join(repo, 'mission.yaml');
        const mission = await loadMission(file);
        assert.deepEqual(
          mission.checks.map((check) => [check.name, check.kind, check.tier]),
          [['tests', 'test-runner', 'demand']],
        );
        const written = await readFile(file, 'utf8');

        const source = path.join(repo, item.source);
        const correct = await readFile(source, 'utf8');
        assert.ok(correct.includes(item.correct));
        await writeFile(source, correct.replace(item.correct, item.buggy));
        const ledger = path.join(await tempWorkspace({}), 'ledger.db');
        const run = await redline([
          'run',
          file,
          '--proposer',
          await fixingProposer(item.source, correct),
          '--ledger',
          ledger,
          '--json',
          '--no-review',
        ]);
        assert.equal(run.code, 0, run.stdout + run.stderr);
        const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
        assert.deepEqual([result.outcome, result.verification, result.attempts], ['complete', 'verified', 1]);
        assert.equal(await readFile(file, 'utf8'), written, 'the run left mission.yaml as init wrote it');
      },
    );
});
