import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { commandProposer } from '../../src/proposers/command-proposer.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { dataOf } from '../helpers/records.js';

const FILES = { 'src/a.js': 'a\n', 'src/lib/b.js': 'b\n', 'notes.txt': 'n\n' };

/** The reason codes of the first attempt's proposer finding and how the run ended. */
async function firstAttempt(
  files: Record<string, string | null>,
  viaProgram: boolean,
): Promise<{ codes: unknown; message: unknown; outcome: string; stopReason: string }> {
  const dir = await tempWorkspace(FILES);
  const ledger = new MemoryLedger();
  // A program speaks the protocol in JSON, where a NUL is `\u0000`; a function proposer hands the string over as it is.
  const proposer = viaProgram
    ? commandProposer({ command: ['node', '-e', `process.stdout.write(${JSON.stringify(JSON.stringify({ files }))})`], cwd: dir })
    : functionProposer(() => ({ files }));
  const result = await runMission({
    mission: defineMission({
      id: 'bad-path',
      goal: 'g',
      workspace: dir,
      budgets: { maxAttempts: 1 },
      checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'false' }],
      stopPolicy: { guards: [] },
    }),
    proposer,
    ledger,
  });
  const findings = dataOf(await ledger.records(result.runId), 'attempt').findings ?? [];
  const proposerFinding = findings.find((item) => item.check === 'proposer');
  return { codes: proposerFinding?.reasonCodes, message: proposerFinding?.message, outcome: result.outcome, stopReason: result.stopReason };
}

describe('proposal paths that cannot be written seal proposer.bad_path, never runtime_error', () => {
  const cases: [string, Record<string, string | null>, RegExp][] = [
    ['a NUL byte in a path', { 'src/a\0.js': 'x' }, /NUL byte/],
    ['a NUL byte in a deleted path', { 'src/a.js\0': null }, /NUL byte/],
    ['a path naming a directory of the baseline', { 'src/lib': 'x' }, /directory "src\/lib"/],
    ['a deletion naming a directory of the baseline', { src: null }, /directory "src"/],
    ['a path whose parent is a file of the baseline', { 'notes.txt/inner.txt': 'x' }, /under the file "notes.txt"/],
    [
      'a path whose parent is a file the proposal writes',
      { 'new.txt': 'x', 'new.txt/inner.txt': 'y' },
      /under the proposed file "new.txt"/,
    ],
  ];
  for (const viaProgram of [false, true]) {
    for (const [what, files, message] of cases) {
      it(`${what} (${viaProgram ? 'command' : 'function'} proposer)`, async () => {
        const attempt = await firstAttempt(files, viaProgram);
        assert.deepEqual(attempt.codes, ['proposer.bad_path'], JSON.stringify(attempt));
        assert.match(String(attempt.message), message);
        assert.notEqual(attempt.stopReason, 'runtime_error');
      });
    }
  }
});
