import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MissionError } from '../../src/errors/mission-error.js';
import { MAX_DURATION_MS } from '../../src/mission/duration.js';
import { loadMission } from '../../src/mission/load.js';
import { defineMission } from '../../src/mission/mission.js';
import { tempWorkspace } from '../helpers/workspace.js';

function refusal(fn: () => unknown): MissionError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof MissionError, `expected a MissionError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the mission to be refused');
}

/** The message of the one issue at `where`. */
function issueAt(error: MissionError, where: string): string {
  const issue = error.issues.find((item) => item.path === where);
  assert.ok(issue !== undefined, `no issue at ${where}: ${JSON.stringify(error.issues)}`);
  return issue.message;
}

describe('mission durations', () => {
  it('takes durations beyond setTimeout’s 24.8 days, up to 365 days', () => {
    assert.equal(defineMission({ id: 'm', goal: 'g', budgets: { maxWallClock: '597h' } }).budgets.maxWallClock, 597 * 3_600_000);
    assert.equal(defineMission({ id: 'm', goal: 'g', budgets: { maxWallClock: '8760h' } }).budgets.maxWallClock, MAX_DURATION_MS);
    assert.equal(
      defineMission({ id: 'm', goal: 'g', checks: [{ name: 'c', kind: 'command', command: 'x', timeout: '600h' }] }).checks[0]?.timeout,
      600 * 3_600_000,
    );
  });

  const tooLong: [string, Record<string, unknown>, string, string][] = [
    ['a wall-clock budget', { budgets: { maxWallClock: '99999999999999h' } }, 'budgets.maxWallClock', '"99999999999999h"'],
    ['a budget one hour over', { budgets: { maxWallClock: '8761h' } }, 'budgets.maxWallClock', '"8761h"'],
    [
      'a check timeout in milliseconds',
      { checks: [{ name: 'c', kind: 'command', command: 'x', timeout: MAX_DURATION_MS + 1 }] },
      'checks[0].timeout',
      String(MAX_DURATION_MS + 1),
    ],
    ['a proposer timeout', { proposer: { kind: 'command', command: 'x', timeout: '9000h' } }, 'proposer.timeout', '"9000h"'],
    ['an agent timeout', { proposer: { kind: 'agent', command: 'x', timeout: '9000h' } }, 'proposer.timeout', '"9000h"'],
  ];
  for (const [what, extra, where, got] of tooLong) {
    it(`refuses ${what} over 365 days, naming the field and the maximum`, () => {
      const message = issueAt(
        refusal(() => defineMission({ id: 'm', goal: 'g', ...extra })),
        where,
      );
      assert.equal(message, `Expected a duration of at most 365 days ("8760h", ${MAX_DURATION_MS} ms), got ${got}`);
    });
  }

  const notFinite: [string, unknown, string][] = [
    ['Infinity', Infinity, 'Infinity'],
    ['-Infinity', -Infinity, '-Infinity'],
    ['NaN', NaN, 'NaN'],
    ['a number string too long for a double', `${'9'.repeat(400)}ms`, `"${'9'.repeat(400)}ms"`],
  ];
  for (const [what, value, got] of notFinite) {
    it(`refuses a duration of ${what} with the field's rule, not "one of the allowed shapes"`, () => {
      const message = issueAt(
        refusal(() => defineMission({ id: 'm', goal: 'g', budgets: { maxWallClock: value } })),
        'budgets.maxWallClock',
      );
      assert.equal(message, `Expected a positive duration such as 30000, "30s" or "5m", got ${got}`);
    });
  }

  it('refuses a YAML .inf timeout read from a file, naming the file and the field', async () => {
    const dir = await tempWorkspace({
      'mission.yaml': 'id: m\ngoal: g\nchecks:\n  - { name: c, kind: command, command: x, timeout: .inf }\n',
    });
    const error = await loadMission(path.join(dir, 'mission.yaml')).then(
      () => assert.fail('expected a refusal'),
      (caught: MissionError) => caught,
    );
    assert.equal(error.source, path.join(dir, 'mission.yaml'));
    assert.match(issueAt(error, 'checks[0].timeout'), /got Infinity$/);
  });
});

describe('mission scope globs', () => {
  const never: [string, RegExp][] = [
    ['../**', /"\.\.\/\*\*" leaves the workspace/],
    ['src/../../x', /leaves the workspace/],
    ['/etc/**', /"\/etc\/\*\*" is an absolute path: scope globs are relative to the workspace/],
    ['C:/Users/**', /is an absolute path/],
    ['!/etc/**', /is an absolute path/],
    ['[]', /"\[\]" has an empty character class/],
    ['src/[!].js', /has an empty character class/],
    ['src/', /ends with "\/", and candidate paths are files: "src\/\*\*" matches what is under the directory/],
    ['src//a.js', /has an empty segment/],
    ['src/./a.js', /has a "\." segment/],
    ['src\\', /matches no path/],
  ];
  for (const [glob, message] of never) {
    it(`refuses ${JSON.stringify(glob)}, which can never match a path in the workspace`, () => {
      assert.match(
        issueAt(
          refusal(() => defineMission({ id: 'm', goal: 'g', scope: ['src/**', glob] })),
          'scope[1]',
        ),
        message,
      );
    });
  }

  it('refuses an empty glob', () => {
    assert.match(
      issueAt(
        refusal(() => defineMission({ id: 'm', goal: 'g', scope: [''] })),
        'scope[0]',
      ),
      /expected length >= 1, got string ""/,
    );
  });

  it('takes globs that can match', () => {
    const scope = [
      '**',
      'src/**',
      './lib/**',
      '*.{js,ts}',
      '!src/secret/**',
      '!(dist)/**',
      'src/[abc].js',
      '[]]',
      'docs/\\[draft\\].md',
      '.github/**',
    ];
    assert.deepEqual(defineMission({ id: 'm', goal: 'g', scope }).scope, scope);
  });
});

describe('mission messages', () => {
  it('shows the pattern an id must match', () => {
    const error = refusal(() => defineMission({ id: 'fix tests!', goal: 'g' }));
    assert.equal(
      issueAt(error, 'id'),
      'expected a string matching /^[A-Za-z0-9._-]+$/ (letters, digits, ".", "_" and "-" only), got string "fix tests!"',
    );
  });

  it('names the mission file and the resolved path of a missing workspace', async () => {
    const dir = await tempWorkspace({
      'missions/fix.yaml': 'id: fix\ngoal: g\nworkspace: ../repo\n',
      'missions/file.yaml': 'id: file\ngoal: g\nworkspace: fix.yaml\n',
    });
    const missing = await loadMission(path.join(dir, 'missions/fix.yaml')).then(
      () => assert.fail('expected a refusal'),
      (caught: MissionError) => caught,
    );
    assert.equal(missing.source, path.join(dir, 'missions/fix.yaml'));
    assert.match(missing.message, new RegExp(`^Invalid mission ${path.join(dir, 'missions/fix.yaml')}:`));
    assert.equal(
      issueAt(missing, 'workspace'),
      `the workspace "../repo" (resolved against the mission file to ${path.join(dir, 'repo')}) is missing`,
    );
    const file = await loadMission(path.join(dir, 'missions/file.yaml')).then(
      () => assert.fail('expected a refusal'),
      (caught: MissionError) => caught,
    );
    assert.match(issueAt(file, 'workspace'), /is not a directory$/);
  });
});
