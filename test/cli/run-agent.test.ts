import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCommand, type Output } from '../../src/cli/run-command.js';
import { tempWorkspace, tree } from '../helpers/workspace.js';

const SED_AGENT = path.resolve(import.meta.dirname, '../fixtures/agents/sed-agent.sh');
const scratch = await mkdtemp(path.join(os.tmpdir(), 'redline-cli-scratch-'));
const previousScratch = process.env.REDLINE_SCRATCH;
process.env.REDLINE_SCRATCH = scratch;
after(async () => {
  if (previousScratch === undefined) delete process.env.REDLINE_SCRATCH;
  else process.env.REDLINE_SCRATCH = previousScratch;
  await rm(scratch, { recursive: true, force: true });
});

function capture(): Output & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, print: (line) => out.push(line), progress: (line) => err.push(line) };
}

async function mathMission(): Promise<{ file: string; ws: string }> {
  const dir = await tempWorkspace({
    'ws/src/math.js': 'export const add = (a, b) => a - b;\n',
    'ws/src/obsolete.js': 'export {};\n',
    'ws/test/math.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/math.js';\ntest('add', () => assert.equal(add(2, 3), 5));\n",
    'ws/package.json': '{"type":"module"}\n',
  });
  const file = path.join(dir, 'mission.json');
  await writeFile(file, JSON.stringify({ id: 'math', goal: 'fix add', workspace: 'ws', scope: ['src/**'], budgets: { maxAttempts: 3 }, stopPolicy: { guards: [] }, checks: [{ name: 'tests', kind: 'test-runner', format: 'tap', command: 'node --test --test-reporter=tap test/' }] }));
  return { file, ws: path.join(dir, 'ws') };
}

describe('redline run --agent', () => {
  it('runs an in-place agent in a private copy and prints its result', async () => {
    const { file, ws } = await mathMission();
    const before = await tree(ws);
    const output = capture();
    assert.equal(await runCommand(file, { agent: SED_AGENT, json: true }, output), 0);
    const summary = JSON.parse(output.out[0] as string) as Record<string, unknown>;
    assert.deepEqual([summary.outcome, summary.verification, summary.attempts], ['complete', 'verified', 2]);
    assert.deepEqual(await tree(ws), before);
  });

  it('refuses --agent together with --proposer', async () => {
    const { file } = await mathMission();
    await assert.rejects(runCommand(file, { agent: SED_AGENT, proposer: 'true' }, capture()), /one of --proposer or --agent/);
  });

  it('shows in the summary what changed in the live workspace during the run, escaped', async () => {
    const { file, ws } = await mathMission();
    const evil = 'src/\u001b[31mred.js';
    const script = path.join(scratch, 'cheat.cjs');
    await writeFile(script, `require('fs').writeFileSync(${JSON.stringify(evil)}, 'x'); console.log('{}');`);
    const cheat = `node ${script}`;
    const output = capture();
    assert.equal(await runCommand(file, { proposer: cheat }, output), 1);
    const text = output.out.join('\n');
    assert.match(text, /workspace\s+changed during the run \(not seen by the checks\): src\/\\x1b\[31mred\.js/);
    assert.ok(!text.includes("\u001b"), "no raw escape reaches the terminal");
    assert.ok(Object.keys(await tree(ws)).includes(evil));
  });
});
