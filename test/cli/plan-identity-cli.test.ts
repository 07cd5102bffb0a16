import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { answerMission } from '../helpers/answer-mission.js';
import { tempDir, tempWorkspace } from '../helpers/workspace.js';
import { redline, ROOT } from './redline.js';

/** A mission that blocks at the human gate after two failed rounds, and an agent that writes a wrong answer each attempt. */
async function gatedMission(): Promise<{ file: string; ledger: string; wrong: string }> {
  // 11, 12, …: a change every attempt, never the answer.
  const dir = await tempWorkspace({ 'wrong.sh': 'printf "1%s\\n" "$REDLINE_ATTEMPT" > src/answer.txt\n' });
  const file = await answerMission(dir, 'gated', { budgets: { maxAttempts: 6 }, stopPolicy: { guards: [{ humanGate: { n: 2 } }] } });
  return { file, ledger: path.join(dir, 'ledger.db'), wrong: path.join(dir, 'wrong.sh') };
}

/** The agent as a recipe that starts its own model server would write it: a free port and a fresh temporary home each run. */
async function agentLine(wrong: string, port: number): Promise<string> {
  const home = await tempDir('redline-agent-home-');
  return `OPENAI_BASE_URL=http://127.0.0.1:${port}/v1 CODEX_HOME=${home} sh ${wrong} --port ${port} --home ${home}/state`;
}

const runIdOf = (stdout: string): string => (JSON.parse(stdout) as { runId: string }).runId;

describe('plan identity a user controls (redline run)', () => {
  it('a rerun whose --agent differs only in its loopback port and temporary directory is the same plan, refused after a thrash; another --plan-label is another plan', async () => {
    const { file, ledger, wrong } = await gatedMission();
    const first = await redline(['run', file, '--agent', await agentLine(wrong, 41237), '--json', '--ledger', ledger]);
    assert.equal(first.code, 1, first.stderr);
    assert.equal(JSON.parse(first.stdout).stopReason, 'human_gate');
    const old = runIdOf(first.stdout);

    const again = await redline(['run', file, '--agent', await agentLine(wrong, 5555), '--json', '--ledger', ledger]);
    assert.equal(again.code, 2, again.stdout);
    assert.match(again.stderr, new RegExp(`refused to rerun the same plan on mission gated: run ${old} ran plan`));
    assert.match(again.stderr, /another --plan-label/);

    const labelled = await redline([
      'run',
      file,
      '--agent',
      await agentLine(wrong, 6000),
      '--plan-label',
      'wrong agent, second try',
      '--resolves',
      old,
      '--json',
      '--ledger',
      ledger,
    ]);
    assert.equal(labelled.code, 1, labelled.stderr);
    const labelledId = runIdOf(labelled.stdout);
    const shown = await redline(['ledger', 'show', labelledId, '--ledger', ledger]);
    assert.match(shown.stdout, /plan [0-9a-f]{12}… \(mission \+ agent proposer labelled wrong agent, second try\)/);
    const exported = await redline(['ledger', 'export', '--format', 'jsonl', '--run', labelledId, '--ledger', ledger]);
    const started = JSON.parse((JSON.parse(exported.stdout.split('\n')[1] as string) as { body: string }).body) as {
      data: { plan: { proposer: unknown } };
    };
    assert.deepEqual(started.data.plan.proposer, {
      kind: 'agent',
      name: 'wrong agent, second try',
      template: 'redline.agent-prompt/1',
      label: true,
    });

    // One label is one plan whatever the command: it thrashed too, so it is refused in turn.
    const sameLabel = await redline(['run', file, '--agent', `sh ${wrong}`, '--plan-label', 'wrong agent, second try', '--ledger', ledger]);
    assert.equal(sameLabel.code, 2, sameLabel.stdout);
    assert.match(sameLabel.stderr, new RegExp(`refused to rerun the same plan on mission gated: run ${labelledId}`));
  });

  it('is in redline run --help, the README and the docs', async () => {
    const help = await redline(['run', '--help']);
    assert.match(help.stdout, /--plan-label <name>\s+name the run's plan/);
    assert.match(await readFile(path.join(ROOT, 'README.md'), 'utf8'), /\[--plan-label NAME\]/);
    assert.match(await readFile(path.join(ROOT, 'docs/ledger.md'), 'utf8'), /--plan-label NAME/);
    assert.match(await readFile(path.join(ROOT, 'docs/agents.md'), 'utf8'), /--plan-label NAME/);
  });
});
