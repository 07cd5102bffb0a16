import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MissionError } from '../../src/errors/mission-error.js';
import { loadMission } from '../../src/mission/load.js';
import { defineMission } from '../../src/mission/mission.js';
import { tempWorkspace } from '../helpers/workspace.js';

function issuesOf(fn: () => unknown): MissionError['issues'] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof MissionError, `expected a MissionError, got ${String(error)}`);
    assert.equal(error.code, 'mission.invalid');
    return error.issues;
  }
  assert.fail('expected the mission to be refused');
}

describe('mission validation', () => {
  it('fills defaults and freezes the mission', () => {
    const mission = defineMission({ id: 'm', goal: 'g' });
    assert.equal(mission.budgets.maxAttempts, 5);
    assert.deepEqual(mission.scope, ['**']);
    assert.equal(mission.progressWindow, 3);
    assert.ok(Object.isFrozen(mission) && Object.isFrozen(mission.budgets));
  });

  it('parses durations', () => {
    assert.equal(defineMission({ id: 'm', goal: 'g', budgets: { maxWallClock: '2m' } }).budgets.maxWallClock, 120_000);
    assert.equal(
      defineMission({ id: 'm', goal: 'g', checks: [{ name: 'c', kind: 'command', command: 'true', timeout: '1.5s' }] }).checks[0]?.timeout,
      1500,
    );
  });

  const cases: [string, unknown, string, RegExp][] = [
    ['a missing goal', { id: 'm' }, 'goal', /expected string, got nothing \(missing\)/],
    ['a wrong type', { id: 'm', goal: 'g', budgets: { maxAttempts: 'five' } }, 'budgets.maxAttempts', /expected number, got string "five"/],
    [
      'a fractional attempt budget',
      { id: 'm', goal: 'g', budgets: { maxAttempts: 2.5 } },
      'budgets.maxAttempts',
      /expected an integer, got number 2\.5/,
    ],
    ['an unknown key', { id: 'm', goal: 'g', budget: {} }, '(root)', /unknown key "budget"/],
    [
      'an unknown check kind',
      { id: 'm', goal: 'g', checks: [{ name: 'c', kind: 'lint' }] },
      'checks[0].kind',
      /expected one of .*"test-runner".*got string "lint"/,
    ],
    [
      'a bad report format',
      { id: 'm', goal: 'g', checks: [{ name: 'c', kind: 'test-runner', command: 'x', format: 'xunit' }] },
      'checks[0].format',
      /expected one of "junit" \| "tap" \| "node-spec", got string "xunit"/,
    ],
    [
      'a bad duration',
      { id: 'm', goal: 'g', budgets: { maxWallClock: '10 minutes' } },
      'budgets.maxWallClock',
      /Expected a positive duration.*got "10 minutes"/,
    ],
    [
      'a duplicate check name',
      {
        id: 'm',
        goal: 'g',
        checks: [
          { name: 'c', kind: 'command', command: 'a' },
          { name: 'c', kind: 'command', command: 'b' },
        ],
      },
      'checks[1].name',
      /unique check names/,
    ],
    ['a bad guard', { id: 'm', goal: 'g', stopPolicy: { guards: [{ treshold: { bar: 0.8 } }] } }, 'stopPolicy.guards[0]', /treshold/],
    [
      'an empty allowMissing pattern',
      { id: 'm', goal: 'g', checks: [{ name: 'c', kind: 'test-runner', command: 'x', format: 'tap', allowMissing: ['a > *', ''] }] },
      'checks[0].allowMissing[1]',
      /expected length >= 1, got string ""/,
    ],
    [
      'allowMissing on a check that reads no test report',
      { id: 'm', goal: 'g', checks: [{ name: 'c', kind: 'command', command: 'x', allowMissing: ['a'] }] },
      'checks[0]',
      /unknown key "allowMissing"/,
    ],
  ];
  for (const [what, input, where, message] of cases) {
    it(`names the path, what was expected and what was found for ${what}`, () => {
      const issues = issuesOf(() => defineMission(input));
      const issue = issues.find((item) => item.path === where);
      assert.ok(issue !== undefined, `no issue at ${where}: ${JSON.stringify(issues)}`);
      assert.match(issue.message, message);
    });
  }

  it('reports every problem of a mission at once', () => {
    assert.equal(issuesOf(() => defineMission({ id: 'bad id!', budgets: { maxAttempts: 0 } })).length, 3);
  });
});

describe('loadMission', () => {
  it('reads YAML and resolves the workspace against the file', async () => {
    const dir = await tempWorkspace({ 'm/mission.yaml': 'id: y\ngoal: g\nworkspace: ../ws\n', 'ws/a.txt': '' });
    const mission = await loadMission(path.join(dir, 'm/mission.yaml'));
    assert.equal(mission.workspaceDir, path.join(dir, 'ws'));
  });

  it('names the line of a YAML syntax error', async () => {
    const dir = await tempWorkspace({ 'mission.yaml': 'id: y\ngoal: [unclosed\n' });
    await assert.rejects(loadMission(path.join(dir, 'mission.yaml')), (error: MissionError) =>
      /cannot parse YAML at line \d/.test(error.message),
    );
  });

  it('refuses invalid JSON, a missing file and an unknown extension with a MissionError', async () => {
    const dir = await tempWorkspace({ 'mission.json': '{"id": "x",}', 'mission.toml': '' });
    await assert.rejects(loadMission(path.join(dir, 'mission.json')), MissionError);
    await assert.rejects(loadMission(path.join(dir, 'nope.yaml')), /cannot read the file \(ENOENT\)/);
    await assert.rejects(loadMission(path.join(dir, 'mission.toml')), /expected a \.json, \.yaml or \.yml file/);
  });

  it('validates a file the same way as an object', async () => {
    const dir = await tempWorkspace({});
    await writeFile(path.join(dir, 'mission.json'), JSON.stringify({ id: 'x', goal: 'g', budgets: { maxAttempts: -1 } }));
    await assert.rejects(
      loadMission(path.join(dir, 'mission.json')),
      (error: MissionError) => error.issues[0]?.path === 'budgets.maxAttempts',
    );
  });
});

describe('runMission refuses a mission it cannot run, before recording anything', () => {
  it('names a cost budget that the proposer cannot measure, and a missing workspace', async () => {
    const { runMission } = await import('../../src/loop/run-mission.js');
    const { functionProposer } = await import('../../src/proposers/function-proposer.js');
    const { MemoryLedger } = await import('../../src/ledger/memory/memory-ledger.js');
    const ledger = new MemoryLedger();
    await assert.rejects(
      runMission({
        mission: defineMission({ id: 'c', goal: 'g', workspace: '/nonexistent/ws', budgets: { maxCostUsd: 1, maxTokens: 1000 } }),
        proposer: functionProposer(() => ({})),
        ledger,
      }),
      (error: MissionError) =>
        ['workspace', 'budgets.maxTokens', 'budgets.maxCostUsd'].every((where) => error.issues.some((issue) => issue.path === where)),
    );
    assert.deepEqual(await ledger.runs(), []);
  });
});
