import assert from 'node:assert/strict';
import { chmod } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { agentProposer } from '../../src/proposers/agent-proposer.js';
import { commandProposer } from '../../src/proposers/command-proposer.js';
import type { Proposer } from '../../src/proposers/proposer.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { dataOf } from '../helpers/records.js';

/** The proposer finding of a one-attempt run. */
async function proposerFinding(proposer: (dir: string) => Proposer): Promise<{ reasonCodes: readonly string[]; message: string }> {
  const dir = await tempWorkspace({
    'src/a.txt': 'a\n',
    'bin/exits-127.sh': '#!/bin/sh\necho "sh: 1: gone-tool: not found" >&2\nexit 127\n',
  });
  await chmod(path.join(dir, 'bin/exits-127.sh'), 0o755);
  const ledger = new MemoryLedger();
  const result = await runMission({
    mission: defineMission({
      id: 'spawn',
      goal: 'g',
      workspace: dir,
      budgets: { maxAttempts: 1 },
      stopPolicy: { guards: [] },
      checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'false' }],
    }),
    proposer: proposer(dir),
    ledger,
  });
  const finding = (dataOf(await ledger.records(result.runId), 'attempt').findings ?? []).find((item) => item.check === 'proposer');
  assert.ok(finding !== undefined, 'no proposer finding');
  return finding;
}

describe('a proposer program that does not exist is proposer.spawn_failed, not exit_nonzero', () => {
  const missing: [string, (dir: string) => Proposer, RegExp][] = [
    [
      'a command string (run by sh -c)',
      (dir) => commandProposer({ command: 'redline-no-such-agent --flag', cwd: dir }),
      /the shell found no program "redline-no-such-agent" \(exit 127\)/,
    ],
    [
      'a command string with variables before the program',
      (dir) => commandProposer({ command: 'MODEL=x redline-no-such-agent', cwd: dir }),
      /"redline-no-such-agent"/,
    ],
    [
      'a command string naming a missing path',
      (dir) => commandProposer({ command: './bin/no-such-agent.sh', cwd: dir }),
      /"\.\/bin\/no-such-agent\.sh"/,
    ],
    ['an argv array', (dir) => commandProposer({ command: ['redline-no-such-agent'], cwd: dir }), /could not start the proposer: ENOENT/],
    [
      'an agent command string',
      () => agentProposer({ command: 'redline-no-such-agent -p "fix it"' }),
      /could not start the agent: the shell found no program "redline-no-such-agent"/,
    ],
    ['an agent argv array', () => agentProposer({ command: ['redline-no-such-agent'] }), /could not start the agent: ENOENT/],
  ];
  for (const [what, proposer, message] of missing) {
    it(what, async () => {
      const finding = await proposerFinding(proposer);
      assert.deepEqual(finding.reasonCodes, ['proposer.spawn_failed']);
      assert.match(finding.message, message);
    });
  }

  // The program ran: what it says on stderr about another program is its own failure.
  const ran: [string, (dir: string) => Proposer][] = [
    ['a program that exits 127 itself', (dir) => commandProposer({ command: './bin/exits-127.sh', cwd: dir })],
    ['a program that runs a missing tool', (dir) => commandProposer({ command: 'true && redline-no-such-tool', cwd: dir })],
    ['a shell builtin that exits 127', (dir) => commandProposer({ command: 'exit 127', cwd: dir })],
  ];
  for (const [what, proposer] of ran) {
    it(`but ${what} is proposer.exit_nonzero`, async () => {
      assert.deepEqual((await proposerFinding(proposer)).reasonCodes, ['proposer.exit_nonzero']);
    });
  }
});
