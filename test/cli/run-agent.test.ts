import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { admitCommand } from '../../src/cli/admit-command.js';
import { showCommand } from '../../src/cli/ledger-command.js';
import { runCommand, type Output } from '../../src/cli/run-command.js';
import { mathMission as mathMissionFile } from '../helpers/math-mission.js';
import { tree, tempDir } from '../helpers/workspace.js';

const SED_AGENT = path.resolve(import.meta.dirname, '../fixtures/agents/sed-agent.sh');
const scratch = await tempDir('redline-cli-scratch-');
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

const mathMission = (): Promise<{ file: string; ws: string }> =>
  mathMissionFile({ budgets: { maxAttempts: 3 }, stopPolicy: { guards: [] } }, { 'src/obsolete.js': 'export {};\n' });

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

  it('an agent that changes nothing: the summary says so, and ledger show prints its account with control and bidi characters spelled out', async () => {
    const { file } = await mathMission();
    try {
      // Stderr and a transcript holding a terminal's clear-screen sequence and U+202E (right-to-left override).
      const agent = `printf 'sandbox: cannot write \\033[2J\\n' >&2; printf 'turn 1\\nclear \\033[2J then \\342\\200\\256 reversed\\n' > "$REDLINE_TRANSCRIPT"`;
      const output = capture();
      assert.equal(await runCommand(file, { agent }, output), 1);
      const summary = output.out.join('\n');
      assert.match(summary, /stop reason\s+no_change \(guard noChange\(2\)\)/);
      assert.match(summary, /detail\s+the agent changed nothing in 2 attempts in a row/);
      assert.match(
        summary,
        /fail\s+proposer: the agent changed nothing \(exit 0, \d+ ms\); its last stderr: sandbox: cannot write \\x1b\[2J/,
      );
      assert.match(output.err.join('\n'), /attempt 2: the agent changed nothing \(exit 0, \d+ ms\)/);

      const runId = /redline ledger show (\S+)/.exec(summary)?.[1] as string;
      const shown = capture();
      assert.equal(await showCommand(runId, { ledger: path.join(path.dirname(file), '.redline/redline.db') }, shown), 0);
      const story = shown.out.join('\n');
      assert.match(story, /attempt 2: changed nothing, no check ran; no progress/);
      assert.match(story, /the agent: exit 0, \d+ ms · stdout 0 B · stderr 27 B · transcript 36 B/);
      assert.match(story, /stderr │ sandbox: cannot write \\x1b\[2J/);
      assert.match(story, /transcript │ clear \\x1b\[2J then \\u\{202e\} reversed/);
      for (const raw of ['\u001b', '\u202e'])
        assert.ok(!(summary + story).includes(raw), 'no raw escape or bidi control reaches the terminal');
    } finally {
      await rm(path.dirname(file), { recursive: true, force: true });
    }
  });

  it('refuses --agent together with --proposer', async () => {
    const { file } = await mathMission();
    await assert.rejects(runCommand(file, { agent: SED_AGENT, proposer: 'true' }, capture()), /one of --proposer or --agent/);
  });

  it('shows in the summary what changed in the live workspace during the run, escaped', async () => {
    const { file, ws } = await mathMission();
    const evil = 'src/\u001b[31mred.js';
    // A shell, not a node start per attempt: printf spells the escape byte of the file name.
    const cheat = `printf x > "$(printf 'src/\\033[31mred.js')" && printf '{}'`;
    const output = capture();
    assert.equal(await runCommand(file, { proposer: cheat }, output), 1);
    const text = output.out.join('\n');
    assert.match(text, /workspace\s+changed during the run \(not seen by the checks\): src\/\\x1b\[31mred\.js/);
    assert.ok(!text.includes('\u001b'), 'no raw escape reaches the terminal');
    assert.ok(Object.keys(await tree(ws)).includes(evil));
  });

  it('a verified run that saw the workspace change: the seal, ledger show and admit all say so', async () => {
    const { file, ws } = await mathMission();
    const script = path.join(scratch, 'fix-and-tamper.cjs');
    await writeFile(
      script,
      "require('fs').writeFileSync('test/extra.js', 'x'); console.log(JSON.stringify({ files: { 'src/math.js': 'export const add = (a, b) => a + b;\\n' } }));",
    );
    const output = capture();
    assert.equal(await runCommand(file, { proposer: `node ${script}`, json: true }, output), 0);
    const { runId, workspaceChanged } = JSON.parse(output.out[0] as string) as { runId: string; workspaceChanged: number };
    assert.equal(workspaceChanged, 1);
    const ledger = path.join(path.dirname(file), '.redline/redline.db');
    const shown = capture();
    assert.equal(await showCommand(runId, { ledger }, shown), 0);
    assert.match(shown.out.join('\n'), /snapshot [0-9a-f]{12}…: \d+ entries, \d+ hashed, [a-z ()]+, taken in \d+ ms/);
    assert.match(shown.out.join('\n'), /copy reset in \d+ ms \(\d+ paths compared, \d+ restored\)/);
    assert.match(shown.out.join('\n'), /evidence workspace\.changed_during_run \(1 path\(s\)\): test\/extra\.js/);
    const admitted = capture();
    assert.equal(await admitCommand(runId, { patch: path.join(scratch, `${runId}.patch`), ledger }, admitted), 0);
    assert.match(admitted.out.join('\n'), /note: the workspace changed while the run ran \(1 path\(s\): test\/extra\.js\)/);
    assert.ok(existsSync(path.join(ws, 'test/extra.js')));
  });

  it('warns at the start that symlinks lead outside the workspace, unless the mission is sandboxed', async () => {
    const { file, ws } = await mathMission();
    await symlink(scratch, path.join(ws, 'src/outside'));
    const output = capture();
    await runCommand(file, { agent: SED_AGENT }, output);
    assert.match(
      output.err.join('\n'),
      /note: 1 symlink\(s\) of the workspace lead outside it \(src\/outside\); .* unless the mission sets sandbox: bwrap/,
    );
  });
});
