import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildChecks } from '../../src/roles/build-checks.js';
import { EMPTY_CANDIDATE } from '../../src/core/candidate.js';
import type { TestInventory } from '../../src/core/test-inventory.js';
import { defineMission } from '../../src/mission/mission.js';
import { startOpenAIStub } from '../../src/testing/openai-stub-server.js';
import { tempDir } from '../helpers/workspace.js';

let dir: string;
let scorer: string;
before(async () => {
  dir = await tempDir('redline-score-spec-');
  scorer = path.join(dir, 'score.mjs');
  // A score program: the score it is given, with one finding.
  await writeFile(
    scorer,
    `process.stdin.resume().on('end', () => process.stdout.write(JSON.stringify({ score: Number(process.argv[2]), findings: [{ reasonCode: 'program.note', message: 'from the program' }] })));`,
  );
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const context = {
  candidate: { ...EMPTY_CANDIDATE, value: { answer: 42 } },
  goal: 'Answer',
  attempt: 1,
  signal: new AbortController().signal,
};

describe('buildChecks: a score check with minOf', () => {
  for (const [programScore, modelScore, status, score] of [
    [0.9, 0.5, 'fail', 0.5],
    [0.6, 0.95, 'fail', 0.6],
    [0.9, 0.85, 'pass', 0.85],
  ] as const) {
    it(`keeps the stricter of a program's ${programScore} and a model's ${modelScore}, with the findings of both`, async () => {
      const stub = await startOpenAIStub({
        replies: [JSON.stringify({ score: modelScore, findings: [{ reasonCode: 'model.note', message: 'from the model' }] })],
      });
      try {
        const mission = defineMission(
          {
            id: 'two-judges',
            goal: 'Answer',
            checks: [
              {
                name: 'quality',
                kind: 'score',
                pass: 0.8,
                minOf: [
                  { command: [process.execPath, scorer, String(programScore)] },
                  { model: { baseURL: stub.baseURL, model: 'stub-judge', rubric: 'Answers the question.' } },
                ],
              },
            ],
          },
          { baseDir: dir },
        );
        const [check] = await buildChecks(mission);
        const [found] = (await check?.run(context)) ?? [];
        assert.equal(found?.status, status);
        assert.equal(found?.score, score);
        assert.equal(found?.tier, 'semantic');
        assert.equal(found?.message, `score ${score.toFixed(3)}: from the program; from the model`);
        assert.deepEqual(found?.reasonCodes, status === 'pass' ? [] : ['score.below_pass', 'program.note', 'model.note']);
        assert.equal(stub.requests.length, 1);
      } finally {
        await stub.close();
      }
    });
  }
});

describe('buildChecks: a test-runner check', () => {
  it('takes allowMissing and a relative reportFile, which it declares as its output', async () => {
    const mission = defineMission(
      {
        id: 'shrink',
        goal: 'Drop the legacy tests',
        checks: [
          {
            name: 'tests',
            kind: 'test-runner',
            command: "mkdir -p out && printf 'TAP version 13\\nok 1 - a\\n1..1\\n' > out/report.tap",
            format: 'tap',
            reportFile: 'out/report.tap',
            allowMissing: ['legacy > *'],
          },
        ],
      },
      { baseDir: dir },
    );
    const [check] = await buildChecks(mission);
    assert.deepEqual(check?.outputs, ['out/report.tap']);
    const baseline: TestInventory = {
      cases: [
        { id: 'a', status: 'pass' },
        { id: 'legacy > parses', status: 'pass' },
      ],
    };
    const found = await check?.run({
      ...context,
      dir,
      inventory: { baseline: () => baseline, record: () => undefined },
    });
    assert.deepEqual(
      found?.map((item) => [item.status, ...item.reasonCodes]),
      [['pass', 'test.allowed_missing:legacy > parses']],
    );
  });
});
