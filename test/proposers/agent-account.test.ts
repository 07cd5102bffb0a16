import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { recordsOf } from '../../src/ledger/run-records.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { agentProposer } from '../../src/proposers/agent-proposer.js';
import { tempWorkspace } from '../helpers/workspace.js';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/**
 * Runs `agent` (a shell command) on a workspace whose demand check counts its runs in a file outside the
 * workspace and passes once src/a.txt says "fixed".
 */
async function runAgent(agent: string, maxAttempts = 3) {
  const root = await tempWorkspace({ 'ws/src/a.txt': 'broken\n' });
  dirs.push(root);
  const counter = path.join(root, 'check-runs.txt');
  const ledger = new MemoryLedger();
  const result = await runMission({
    mission: defineMission({
      id: 'agent-account',
      goal: 'fix a.txt',
      workspace: path.join(root, 'ws'),
      scope: ['src/**'],
      budgets: { maxAttempts },
      stopPolicy: { guards: [] },
      checks: [{ name: 'fixed', kind: 'command', tier: 'demand', command: `echo run >> ${counter}; grep -q fixed src/a.txt` }],
    }),
    proposer: agentProposer({ command: agent }),
    ledger,
  });
  const attempts = recordsOf(await ledger.records(result.runId), 'attempt').map((record) => record.data);
  const checkRuns = (await readFile(counter, 'utf8')).split('\n').filter(Boolean).length;
  return { result, attempts, checkRuns };
}

describe("the agent's account", () => {
  it('keeps exit code, time, the tails of stdout and stderr, and the transcript it wrote to $REDLINE_TRANSCRIPT', async () => {
    const { result, attempts } = await runAgent(
      `echo 'thinking…'; echo 'a warning' >&2; printf 'turn 1\\nedited src/a.txt\\n' > "$REDLINE_TRANSCRIPT"; echo fixed > src/a.txt`,
    );
    assert.deepEqual([result.outcome, result.attempts], ['complete', 1]);
    const account = attempts[0]?.account;
    assert.deepEqual(
      { ...account, durationMs: typeof account?.durationMs },
      {
        kind: 'agent',
        exitCode: 0,
        durationMs: 'number',
        stdout: { text: 'thinking…\n', droppedBytes: 0 },
        stderr: { text: 'a warning\n', droppedBytes: 0 },
        transcript: { text: 'turn 1\nedited src/a.txt\n', droppedBytes: 0 },
      },
    );
  });

  it('keeps the last 64 KiB of a long transcript, saying how much came before, for a failed attempt too', async () => {
    const { attempts } = await runAgent(
      `head -c 70000 /dev/zero | tr '\\0' x > "$REDLINE_TRANSCRIPT"; echo ' the end' >> "$REDLINE_TRANSCRIPT"; echo 'model unreachable' >&2; exit 7`,
      1,
    );
    const [attempt] = attempts;
    assert.deepEqual(attempt?.findings?.[0]?.reasonCodes, ['proposer.exit_nonzero']);
    const transcript = attempt?.account?.transcript;
    assert.equal(Buffer.byteLength(transcript?.text ?? ''), 65_536);
    assert.equal(transcript?.droppedBytes, 70_009 - 65_536);
    assert.ok(transcript?.text.endsWith('x the end\n'));
    assert.deepEqual([attempt?.account?.exitCode, attempt?.account?.stderr.text], [7, 'model unreachable\n']);
  });

  it('an agent that changes nothing: proposer.no_change with its stderr, no check run, stopped after two in a row', async () => {
    const { result, attempts, checkRuns } = await runAgent(
      `echo 'codex: Failed to write file src/a.txt: sandbox denied' >&2; echo '{"type":"error"}' > "$REDLINE_TRANSCRIPT"`,
    );
    assert.deepEqual(
      [result.outcome, result.verification, result.stopReason, result.guard, result.detail, result.attempts],
      ['failed_with_evidence', 'unverified', 'no_change', 'noChange(2)', 'the agent changed nothing in 2 attempts in a row', 2],
    );
    // The check ran once, on the baseline: never on the unchanged candidate.
    assert.equal(checkRuns, 1);
    for (const attempt of attempts) {
      const [first, ...rest] = attempt.findings ?? [];
      assert.deepEqual([first?.check, first?.status, first?.reasonCodes], ['proposer', 'fail', ['proposer.no_change']]);
      assert.match(
        first?.message ?? '',
        /^the agent changed nothing \(exit 0, \d+ ms\); its last stderr: codex: Failed to write file src\/a\.txt: sandbox denied\n/,
      );
      // The baseline's findings still hold for the unchanged candidate.
      assert.deepEqual(
        rest.map((item) => [item.check, item.status]),
        [
          ['scope', 'pass'],
          ['fixed', 'fail'],
        ],
      );
      assert.deepEqual([attempt.summary?.noChange, attempt.summary?.progress], [true, false]);
      assert.equal(attempt.account?.stderr.text, 'codex: Failed to write file src/a.txt: sandbox denied\n');
      assert.equal(attempt.account?.transcript?.text, '{"type":"error"}\n');
    }
    // The brief the run is sealed with tells the agent's account next to its last error.
    assert.match(
      result.brief?.lastError ?? '',
      /\n\nthe agent: exit 0, \d+ ms\nlast lines of its stderr:\n {2}codex: Failed to write file/,
    );
  });
});
