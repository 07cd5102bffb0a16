import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MissionError } from '../../src/errors/mission-error.js';
import { defineMission } from '../../src/mission/mission.js';

const issuesOf = (fields: Record<string, unknown>): { path: string; message: string }[] => {
  try {
    defineMission({ id: 'm', goal: 'g', ...fields });
  } catch (error) {
    assert.ok(error instanceof MissionError);
    return error.issues.map(({ path, message }) => ({ path, message }));
  }
  assert.fail('expected a MissionError');
};

const score = (sources: Record<string, unknown>) => ({ checks: [{ name: 'quality', kind: 'score', ...sources }] });
const model = { baseURL: 'http://127.0.0.1:1/v1', model: 'm', rubric: 'r' };

describe('mission schema: judge', () => {
  it('is absent by default, and takes the routing table, a model, a command or a human, with defaults filled in', () => {
    assert.equal(defineMission({ id: 'm', goal: 'g' }).judge, undefined);
    assert.equal(defineMission({ id: 'm', goal: 'g', judge: 'human' }).judge, 'human');
    assert.deepEqual(defineMission({ id: 'm', goal: 'g', judge: { kind: 'human', timeout: '10m' } }).judge, {
      kind: 'human',
      timeout: 600_000,
      pollInterval: 5_000,
      onReject: 'retry',
    });
    assert.deepEqual(defineMission({ id: 'm', goal: 'g', judge: { kind: 'command', command: 'judge.sh' } }).judge, {
      kind: 'command',
      command: 'judge.sh',
      timeout: 60_000,
      outputCap: 1_048_576,
    });
    assert.deepEqual(defineMission({ id: 'm', goal: 'g', judge: { kind: 'model', baseURL: model.baseURL, model: 'm' } }).judge, {
      kind: 'model',
      baseURL: model.baseURL,
      model: 'm',
      apiKeyEnv: 'OPENAI_API_KEY',
    });
  });

  it('names what is wrong with a judge', () => {
    const cases: [unknown, string][] = [
      [{ kind: 'human', timeout: 'soon' }, 'judge.timeout: Expected a positive duration such as 30000, "30s" or "5m", got "soon"'],
      [{ kind: 'human', onReject: 'block' }, 'judge.onReject: expected one of "retry" | "fail", got string "block"'],
      [{ kind: 'command' }, 'judge.command: expected one of the allowed shapes, got nothing (missing)'],
      [{ kind: 'oracle' }, 'judge.kind: expected one of "routing-table" | "model" | "command" | "human", got string "oracle"'],
      ['oracle', 'Expected "routing-table", "human" or {kind: "routing-table" | "model" | "command" | "human", …}, got string "oracle"'],
    ];
    for (const [judge, message] of cases) assert.deepEqual(issuesOf({ judge }), [{ path: 'judge', message }]);
  });
});

describe('mission schema: score check sources', () => {
  it('keeps command and model, and takes minOf with two sources', () => {
    for (const sources of [{ command: 'score.sh' }, { model }, { minOf: [{ command: 'a.sh' }, { model }] }])
      assert.equal(defineMission({ id: 'm', goal: 'g', ...score(sources) }).checks.length, 1);
  });

  it('wants exactly one of command, model or minOf, and exactly two sources in minOf', () => {
    const one = 'Expected exactly one of "command", "model" or "minOf" on a score check';
    assert.deepEqual(issuesOf(score({})), [{ path: 'checks[0]', message: one }]);
    assert.deepEqual(issuesOf(score({ command: 'a.sh', minOf: [{ command: 'a.sh' }, { model }] })), [{ path: 'checks[0]', message: one }]);
    assert.equal(issuesOf(score({ minOf: [{ command: 'a.sh' }] }))[0]?.path, 'checks[0].minOf');
    assert.equal(issuesOf(score({ minOf: [{ command: 'a.sh', model }, { model }] }))[0]?.path, 'checks[0].minOf[0]');
  });
});
