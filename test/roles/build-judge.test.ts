import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import { buildJudge } from '../../src/roles/build-judge.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { startOpenAIStub } from '../../src/testing/openai-stub-server.js';
import { dataOf } from '../helpers/records.js';
import { tempDir } from '../helpers/workspace.js';

/** A demand red line that holds once the candidate's value is 1. */
const valueIsOne: Check = {
  name: 'value-is-one',
  stage: 'fast',
  tier: 'demand',
  required: true,
  run: async ({ candidate }) =>
    candidate.value === 1
      ? [finding(valueIsOne, 'pass', [], 'value is 1')]
      : [finding(valueIsOne, 'fail', ['value.wrong'], `value is ${String(candidate.value)}`)],
};

/** A judge program: accepts what can be accepted, else retries; says what it was asked in its detail. */
const JUDGE_PROGRAM = `
let input = '';
process.stdin.on('data', (chunk) => (input += chunk)).on('end', () => {
  const request = JSON.parse(input);
  const mode = process.argv[2];
  if (mode === 'garbage') return process.stdout.write('I think it is fine');
  if (mode === 'hang') return setTimeout(() => {}, 60_000);
  if (mode === 'accept-always') return process.stdout.write(JSON.stringify({ transition: 'accept', reason: 'program_says_so' }));
  const accept = request.attempt > 0 && request.acceptance.acceptable;
  process.stdout.write(JSON.stringify({
    transition: accept ? 'accept' : 'retry',
    reason: accept ? 'program_accepts' : 'program_retries',
    cites: request.findings.map((item) => item.check),
    detail: [request.protocol, request.runId, request.mission.id, request.attempt].join(' '),
  }));
});
`;

let dir: string;
let program: string;
before(async () => {
  dir = await tempDir('redline-judge-spec-');
  program = path.join(dir, 'judge.mjs');
  await writeFile(program, JUDGE_PROGRAM);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const commandMission = (mode: string, extra: Record<string, unknown> = {}) =>
  defineMission(
    {
      id: 'command-judged',
      goal: 'Set the value to 1',
      budgets: { maxAttempts: 3 },
      judge: { kind: 'command', command: [process.execPath, program, mode], ...extra },
    },
    { baseDir: dir },
  );

describe('buildJudge', () => {
  it('builds the routing table for a mission without judge:, and for "routing-table" in either form', async () => {
    for (const judge of [undefined, 'routing-table', { kind: 'routing-table' }]) {
      const mission = defineMission({ id: 'm', goal: 'g', ...(judge === undefined ? {} : { judge }) });
      assert.equal((await buildJudge(mission)).name, 'routing-table');
    }
  });

  it('runs a command judge: the evidence on stdin, its decision recorded and applied', async () => {
    const ledger = new MemoryLedger();
    const result = await runMission({
      mission: commandMission('decide'),
      proposer: functionProposer(({ attempt }) => ({ value: attempt })),
      checks: [valueIsOne],
      ledger,
    });
    assert.deepEqual([result.outcome, result.stopReason, result.attempts], ['complete', 'program_accepts', 1]);
    assert.equal(result.detail, `redline.decision/1 ${result.runId} command-judged 1`);
    const records = await ledger.records(result.runId);
    assert.equal(dataOf(records, 'run.started').judge, `command:${process.execPath} ${program} decide`);
    assert.deepEqual(
      records.filter((record) => record.type === 'decision').map((record) => (record.data.decision as { reason: string }).reason),
      ['program_retries', 'program_accepts'],
    );
  });

  const refused: [string, string, RegExp, Record<string, unknown>?][] = [
    ['prints no JSON', 'garbage', /^decision\.judge_failed: the judge threw: the judge printed no JSON decision: I think it is fine$/],
    [
      'accepts what cannot be accepted',
      'accept-always',
      /^decision\.incomplete_evidence: accept with incomplete evidence: there is no candidate yet$/,
    ],
    [
      'runs past its timeout',
      'hang',
      /^decision\.judge_failed: the judge threw: the judge ran past its 300 ms timeout$/,
      { timeout: '300ms' },
    ],
  ];
  for (const [what, mode, detail, extra] of refused) {
    it(`refuses and records the decision of a command judge that ${what}`, async () => {
      const result = await runMission({
        mission: commandMission(mode, extra),
        proposer: functionProposer(() => ({ value: 1 })),
        checks: [valueIsOne],
      });
      assert.deepEqual([result.outcome, result.stopReason], ['failed_with_evidence', 'invalid_decision']);
      assert.match(result.detail, detail);
    });
  }

  it('asks a model judge through an OpenAI-compatible endpoint', async () => {
    const stub = await startOpenAIStub({
      replies: [JSON.stringify({ transition: 'accept', reason: 'model_accepts', cites: [], detail: 'the value is what the goal asks' })],
    });
    process.env.REDLINE_TEST_JUDGE_KEY = 'test-key';
    try {
      const mission = defineMission({
        id: 'model-judged',
        goal: 'Set the value to 1',
        judge: { kind: 'model', baseURL: stub.baseURL, model: 'stub-judge', apiKeyEnv: 'REDLINE_TEST_JUDGE_KEY', timeout: '30s' },
      });
      const ledger = new MemoryLedger();
      const result = await runMission({ mission, proposer: functionProposer(() => ({ value: 1 })), ledger });
      assert.deepEqual([result.outcome, result.verification, result.stopReason], ['complete', 'sampled', 'model_accepts']);
      assert.equal(dataOf(await ledger.records(result.runId), 'run.started').judge, 'model:stub-judge');
      assert.equal(stub.requests.length, 1);
    } finally {
      delete process.env.REDLINE_TEST_JUDGE_KEY;
      await stub.close();
    }
  });
});
