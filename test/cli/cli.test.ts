import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { answerMission } from '../helpers/answer-mission.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline, ROOT, spawnRedline } from './redline.js';

// Runs the CLI in-process as a user would type it; the built CLI is spawned only where the process
// boundary is the point (exit code and stderr of a bad mission file, what `--help` loads).
const AGENT = path.join(ROOT, 'test/fixtures/proposers/answer-agent.sh');
const LOADS = path.join(ROOT, 'test/fixtures/cli/record-loads.mjs');

/** The answer mission in a temp dir of its own. */
const answerMissionFile = async (extra: Record<string, unknown> = {}): Promise<string> =>
  answerMission(await tempWorkspace({}), 'answer', extra);

/** The modules the built CLI loads for `args`, by URL, recorded by a module hook in the child. */
async function modulesLoaded(args: readonly string[]): Promise<string[]> {
  const file = path.join(await tempWorkspace({}), 'loads.txt');
  const result = spawnRedline(args, { env: { ...process.env, REDLINE_TEST_LOADS: file }, node: ['--import', LOADS] });
  assert.equal(result.code, 0, result.stderr);
  return (await readFile(file, 'utf8')).trim().split('\n');
}

describe('redline CLI', () => {
  it('runs a mission with any program speaking the protocol and prints one JSON line', async () => {
    const file = await answerMissionFile();
    const { code, stdout } = await redline(['run', file, '--proposer', `sh ${AGENT}`, '--json']);
    assert.equal(code, 0);
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const summary = JSON.parse(lines[0] as string);
    assert.deepEqual(Object.keys(summary), ['runId', 'mission', 'outcome', 'verification', 'stopReason', 'attempts', 'spent']);
    assert.deepEqual(
      [summary.mission, summary.outcome, summary.verification, summary.stopReason, summary.attempts],
      ['answer', 'complete', 'verified', 'demand_passed', 2],
    );
    // What the two attempts reported spending, as the seal counted it.
    assert.deepEqual(summary.spent, { inputTokens: 240, outputTokens: 16, costUsd: 0.0008 });
  });

  it('prints a readable table with the evidence file for people', async () => {
    const file = await answerMissionFile();
    const { code, stdout, stderr } = await redline(['run', file, '--proposer', `sh ${AGENT}`]);
    assert.equal(code, 0);
    assert.match(stderr, /attempt 1: 1 failing: output\.mismatch/);
    assert.match(stdout, /outcome\s+complete/);
    const show = /evidence\s+(redline ledger show .*)$/m.exec(stdout)?.[1];
    assert.ok(show !== undefined, stdout);
    const story = await redline(show.split(' ').slice(1));
    assert.equal(story.code, 0);
    assert.match(story.stdout, /attempt 1: changes src\/answer\.txt/);
    assert.match(story.stdout, /sealed complete \/ verified \/ demand_passed after 2 attempt/);
  });

  it('exits 1 for a failed run', async () => {
    const file = await answerMissionFile({ budgets: { maxAttempts: 1 } });
    const { code, stdout } = await redline(['run', file, '--proposer', `sh ${AGENT}`, '--json']);
    assert.equal(code, 1);
    assert.equal(JSON.parse(stdout).outcome, 'failed_with_evidence');
  });

  it('exits 2 with the path, expectation and finding of a bad mission file, and no stack trace', async () => {
    const dir = await tempWorkspace({ 'mission.yaml': 'id: x\ngoal: g\nbudgets:\n  maxAttempts: many\n' });
    const { code, stderr } = spawnRedline(['run', path.join(dir, 'mission.yaml'), '--proposer', 'true']);
    assert.equal(code, 2);
    assert.match(stderr, /budgets\.maxAttempts: expected number, got string "many"/);
    assert.doesNotMatch(stderr, /\n\s+at /);
  });

  it('exits 2 for usage errors and when no proposer is given', async () => {
    assert.equal((await redline(['run'])).code, 2);
    assert.equal((await redline(['run', 'x.yaml', '--no-such-flag'])).code, 2);
    const { code, stderr } = await redline(['run', await answerMissionFile()]);
    assert.equal(code, 2);
    assert.match(stderr, /no proposer/);
  });

  it('has --help for every command', async () => {
    for (const args of [
      ['--help'],
      ['run', '--help'],
      ['demo', '--help'],
      ['ledger', '--help'],
      ['ledger', 'verify', '--help'],
      ['replay', '--help'],
      ['admit', '--help'],
    ]) {
      const { code, stdout } = await redline(args);
      assert.equal(code, 0);
      assert.match(stdout, /Usage: redline/);
    }
    const spawned = spawnRedline(['--help']);
    assert.equal(spawned.code, 0, spawned.stderr);
    assert.match(spawned.stdout, /^Usage: redline /);
  });

  it('loads a command when it runs: --help and ledger verify load neither the loop, the mission schema, the study, the MCP server nor pg', async () => {
    const ledger = path.join(await tempWorkspace({}), 'redline.db');
    await (await SqliteLedger.open({ database: ledger })).close();
    // The built CLI loads dist/; in the suites' compiled tree (scripts/build-tests.mjs) dist/ is the compiled src/.
    const loop =
      /\/(dist|src)\/(loop\/run-mission|mission\/schema|study\/|mcp\/)|\/node_modules\/(zod|pg|vega|ai|@ai-sdk|@modelcontextprotocol)\//;
    const help = await modulesLoaded(['--help']);
    assert.deepEqual(
      help.filter((url) => loop.test(url) || /better-sqlite3/.test(url)),
      [],
    );
    assert.ok(
      help.some((url) => /\/(dist|src)\/cli\/main\.js$/.test(url)),
      'the hook saw the CLI load',
    );
    const verify = await modulesLoaded(['ledger', 'verify', '--ledger', ledger]);
    // Verification parses every record (zod): it loads that, and still nothing of the loop, the mission schema, the study or pg.
    assert.deepEqual(
      verify.filter((url) => loop.test(url) && !/\/node_modules\/zod\//.test(url)),
      [],
    );
    assert.ok(
      verify.some((url) => /better-sqlite3/.test(url)),
      'the hook saw the SQLite driver load',
    );
  });

  it('--version answers before the CLI loads, as the CLI itself answers it', async () => {
    const inProcess = await redline(['--version']);
    for (const flag of ['--version', '-V']) {
      const spawned = spawnRedline([flag]);
      assert.deepEqual([spawned.code, spawned.stdout], [0, inProcess.stdout]);
    }
    const loads = await modulesLoaded(['--version']);
    assert.deepEqual(
      loads.filter((url) => /\/(dist|src)\/|\/node_modules\//.test(url)).map((url) => url.replace(/.*\/(dist|src)\//, '')),
      ['cli/version.js'],
    );
  });
});
