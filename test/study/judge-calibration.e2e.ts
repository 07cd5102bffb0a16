import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildChecks } from '../../src/roles/build-checks.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { loadMission } from '../../src/mission/load.js';
import { chiSquareQuantile } from '../../src/study/judge-noise/chi-square.js';
import { calibrateJudge, recentCandidates, sigmaInterval } from '../../src/study/judge-noise/index.js';
import { startOpenAIStub } from '../../src/testing/openai-stub-server.js';
import { redline, ROOT } from '../cli/redline.js';
import { tempDir } from '../helpers/workspace.js';

const NOISY_JUDGE = path.join(ROOT, 'test/fixtures/judges/noisy-judge.mjs');
const SIGMA = 0.1;
/** The noisy judge's seed: its draws, and so every estimate below, are fixed. */
const SEED = 1;

/** A mission file with no workspace whose replay proposer proposes `values` in turn, scored by `check`. */
async function writeMission(
  dir: string,
  file: string,
  { taskType, values, check }: { taskType: string; values: readonly string[]; check: object },
) {
  const attempts = `${file}.attempts.json`;
  await writeFile(path.join(dir, attempts), JSON.stringify(values.map((value) => ({ value }))));
  const mission = {
    id: 'summaries',
    goal: 'Summarize the incident in one sentence.',
    taskType,
    budgets: { maxAttempts: values.length },
    checks: [{ name: 'quality', kind: 'score', required: false, pass: 0.99, ...check }],
    stopPolicy: { guards: [{ threshold: { bar: 0.99 } }] },
    proposer: { kind: 'replay', file: attempts },
  };
  await writeFile(path.join(dir, file), JSON.stringify(mission));
  return path.join(dir, file);
}

/**
 * A SQLite ledger holding two runs of mission `summaries` (task types `incident` then `postmortem`), three
 * candidates each: recorded once (each candidate scored by a spawned judge) and only read by every case.
 * The judge's draws go on from its call counter, so the estimates stay fixed as long as the cases run in order.
 */
let recorded: Promise<{ dir: string; ledger: string; noisy: object }> | undefined;
function recordRuns(): Promise<{ dir: string; ledger: string; noisy: object }> {
  recorded ??= recordNewRuns();
  return recorded;
}

async function recordNewRuns(): Promise<{ dir: string; ledger: string; noisy: object }> {
  const dir = await tempDir('redline-judge-calibrate-');
  const ledger = path.join(dir, 'ledger.db');
  const noisy = { command: [process.execPath, NOISY_JUDGE, path.join(dir, 'calls.txt'), String(SIGMA), String(SEED)] };
  for (const [taskType, prefix] of [
    ['incident', 'The outage'],
    ['postmortem', 'The review'],
  ] as const) {
    const values = [1, 2, 3].map((n) => `${prefix} draft ${n}: a config deploy shrank the pool; rollback fixed it.`);
    const mission = await writeMission(dir, `${taskType}.json`, { taskType, values, check: noisy });
    const run = await redline(['run', mission, '--ledger', ledger, '--json', '--no-review']);
    assert.equal(run.code, 1, run.stderr);
  }
  return { dir, ledger, noisy };
}

describe('chi-square and the interval of σ', () => {
  it('gives the tabulated quantiles', () => {
    for (const [p, df, expected] of [
      [0.975, 10, 20.483],
      [0.025, 10, 3.247],
      [0.95, 1, 3.841],
      [0.99, 100, 135.807],
      [0.025, 1, 0.000982],
    ] as const)
      assert.ok(Math.abs(chiSquareQuantile(p, df) - expected) < 1e-3 * Math.max(1, expected), `χ²(${p}, ${df})`);
    const [low, high] = sigmaInterval({ sigma: 0.1, df: 40 });
    assert.ok(low < 0.1 && high > 0.1);
    assert.ok(Math.abs(low - 0.1 * Math.sqrt(40 / 59.342)) < 1e-4 && Math.abs(high - 0.1 * Math.sqrt(40 / 24.433)) < 1e-4);
  });
});

describe('judge calibration against a real SQLite ledger', () => {
  it('finds the recorded candidates, newest first, at most the limit', async () => {
    const { ledger: file } = await recordRuns();
    const ledger = await openLedger(file, { readOnly: true });
    try {
      const all = await recentCandidates(ledger, { filter: { missionId: 'summaries' }, limit: 10 });
      assert.deepEqual(
        all.map((item) => [item.taskType, item.attempt, String(item.candidate.value).slice(0, 18)]),
        [
          ['postmortem', 3, 'The review draft 3'],
          ['postmortem', 2, 'The review draft 2'],
          ['postmortem', 1, 'The review draft 1'],
          ['incident', 3, 'The outage draft 3'],
          ['incident', 2, 'The outage draft 2'],
          ['incident', 1, 'The outage draft 1'],
        ],
      );
      assert.equal(all[0]?.goal, 'Summarize the incident in one sentence.');
      const two = await recentCandidates(ledger, { filter: { missionId: 'summaries' }, limit: 2 });
      assert.deepEqual(two, all.slice(0, 2));
      assert.deepEqual(await recentCandidates(ledger, { filter: { missionId: 'other' }, limit: 2 }), []);
    } finally {
      await ledger.close();
    }
  });

  it("estimates a command judge's σ per task type, with an interval that covers the known σ 0.1", async () => {
    const { dir, ledger: file, noisy } = await recordRuns();
    const mission = await loadMission(await writeMission(dir, 'calibrate.json', { taskType: 'incident', values: ['x'], check: noisy }));
    const [check] = await buildChecks(mission);
    assert.ok(check);
    const ledger = await openLedger(file, { readOnly: true });
    try {
      const candidates = await recentCandidates(ledger, { filter: { missionId: 'summaries' }, limit: 6 });
      const report = await calibrateJudge({ check, candidates, repeats: 8 });
      assert.deepEqual(
        report.byTaskType.map((row) => [row.taskType, row.candidates, row.scores, row.degreesOfFreedom, row.errors]),
        [
          ['postmortem', 3, 24, 21, 0],
          ['incident', 3, 24, 21, 0],
        ],
      );
      assert.deepEqual([report.all.candidates, report.all.scores, report.all.degreesOfFreedom], [6, 48, 42]);
      for (const row of [report.all, ...report.byTaskType]) {
        const [low, high] = row.interval ?? [Number.NaN, Number.NaN];
        assert.ok(low <= SIGMA && SIGMA <= high, `${row.taskType}: σ ${SIGMA} in [${low}, ${high}]`);
        assert.equal(row.noise, Math.round((row.sigma ?? 0) * 10_000) / 10_000);
      }
      assert.ok(Math.abs((report.all.sigma ?? 0) - SIGMA) < 0.03, `σ̂ ${report.all.sigma}`);
    } finally {
      await ledger.close();
    }
  });

  it('through the CLI: a table per task type and the noiseAware line; --json; exit 2 without candidates or score check', async () => {
    const { dir, ledger, noisy } = await recordRuns();
    const mission = await writeMission(dir, 'calibrate.json', { taskType: 'incident', values: ['x'], check: noisy });
    const { code, stdout, stderr } = await redline(['judge', 'calibrate', mission, '--repeats', '3', '--ledger', ledger]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /judge noise of quality \(mission summaries\): 6 candidate\(s\) from .*ledger\.db, 3 scores each/);
    assert.match(stdout, /postmortem +3 +9 +0 +6 +0\.\d{4} +\[0\.\d{4}, 0\.\d{4}\]/);
    assert.match(stdout, /incident +3 +9 +0 +6 /);
    assert.match(stdout, /all +6 +18 +0 +12 /);
    assert.match(stdout, /noiseAware: \{ bar: <bar>, confidence: <confidence>, noise: 0\.\d+ \}/);
    assert.match(stderr, /scoring 6 recorded candidate\(s\) of mission summaries 3 times each/);

    const json = await redline(['judge', 'calibrate', mission, '--repeats', '4', '--candidates', '2', '--ledger', ledger, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const line = JSON.parse(json.stdout) as { check: string; all: { candidates: number; interval: [number, number]; noise: number } };
    assert.equal(line.check, 'quality');
    assert.equal(line.all.candidates, 2);
    assert.ok(line.all.interval[0] <= line.all.noise && line.all.noise <= line.all.interval[1]);

    const byType = await redline([
      'judge',
      'calibrate',
      mission,
      '--task-type',
      'incident',
      '--repeats',
      '2',
      '--ledger',
      ledger,
      '--json',
    ]);
    assert.deepEqual(
      (JSON.parse(byType.stdout) as { byTaskType: { taskType: string }[] }).byTaskType.map((row) => row.taskType),
      ['incident'],
    );

    const none = await redline(['judge', 'calibrate', mission, '--task-type', 'nothing', '--ledger', ledger]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /Expected recorded candidates of task type nothing in .*ledger\.db, got none/);
    const unknownCheck = await redline(['judge', 'calibrate', mission, '--check', 'nope', '--ledger', ledger]);
    assert.equal(unknownCheck.code, 2);
    assert.match(unknownCheck.stderr, /Expected --check to name a score check of summaries, got "nope"/);
    const once = await redline(['judge', 'calibrate', mission, '--repeats', '1', '--ledger', ledger]);
    assert.equal(once.code, 2);
  });

  it('with a model score judge against the OpenAI-compatible stub server: every candidate asked N times', async () => {
    const { dir, ledger } = await recordRuns();
    // Two candidates, three scores each: 0.5, 0.6, 0.7 → each candidate's variance 0.01, σ = 0.1 exactly.
    const replies = [0.5, 0.6, 0.7, 0.5, 0.6, 0.7].map((score) => JSON.stringify({ score, findings: [] }));
    const stub = await startOpenAIStub({ replies });
    try {
      const model = { baseURL: stub.baseURL, model: 'stub-judge', rubric: 'Names the cause and the fix.' };
      const mission = await writeMission(dir, 'model.json', { taskType: 'incident', values: ['x'], check: { model } });
      const { code, stdout, stderr } = await redline([
        'judge',
        'calibrate',
        mission,
        '--repeats',
        '3',
        '--candidates',
        '2',
        '--ledger',
        ledger,
        '--json',
      ]);
      assert.equal(code, 0, stderr);
      const { all } = JSON.parse(stdout) as { all: { sigma: number; noise: number; degreesOfFreedom: number; interval: [number, number] } };
      assert.equal(all.degreesOfFreedom, 4);
      assert.ok(Math.abs(all.sigma - 0.1) < 1e-9);
      assert.equal(all.noise, 0.1);
      assert.deepEqual(all.interval, sigmaInterval({ sigma: all.sigma, df: 4 }));
      assert.equal(stub.requests.length, 6);
      const prompts = stub.requests.map((request) => JSON.stringify(request));
      assert.ok(
        prompts.slice(0, 3).every((prompt) => prompt.includes('The review draft 3')),
        'the newest candidate first, three times',
      );
      assert.ok(prompts.slice(3).every((prompt) => prompt.includes('The review draft 2')));
    } finally {
      await stub.close();
    }
  });
});
