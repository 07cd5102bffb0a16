import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateText, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { openAICompatibleModel } from '../../src/ai-sdk/openai-compatible.js';
import { redlineStopWhen } from '../../src/ai-sdk/stop-when.js';
import { MissionError } from '../../src/errors/mission-error.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { recordsOf } from '../../src/ledger/run-records.js';
import { recoverRuns } from '../../src/loop/resume.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { startOpenAIStub } from '../../src/testing/openai-stub-server.js';
import { redline } from '../cli/redline.js';
import { tempDir } from '../helpers/workspace.js';

/** One scripted model step: the tool calls it makes (name, input) and what it says. */
interface Turn {
  readonly calls?: readonly (readonly [string, unknown])[];
  readonly text?: string;
  readonly tokens?: number;
}

/** The AI SDK's own mock model playing `turns` in order; past the script it answers text only. */
function scriptedModel(turns: readonly Turn[]): MockLanguageModelV3 {
  let call = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const { calls = [], text = 'done', tokens = 10 } = turns[call] ?? { text: 'nothing left to do' };
      call += 1;
      return {
        content: [
          ...(text === '' ? [] : [{ type: 'text' as const, text }]),
          ...calls.map(([toolName, input], index) => ({
            type: 'tool-call' as const,
            toolCallId: `call-${call}-${index}`,
            toolName,
            input: JSON.stringify(input),
          })),
        ],
        finishReason: { unified: calls.length === 0 ? ('stop' as const) : ('tool-calls' as const), raw: undefined },
        usage: {
          inputTokens: { total: tokens, noCache: tokens, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: tokens, text: tokens, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
}

let dir: string;
before(async () => {
  dir = await tempDir('redline-stop-when-');
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Tools over the test's directory: write a file, note a thought. */
const tools = () => ({
  write: tool({
    inputSchema: z.object({ file: z.string(), content: z.string() }),
    execute: async ({ file, content }) => {
      await writeFile(path.join(dir, path.basename(file)), content);
      return 'written';
    },
  }),
  note: tool({ inputSchema: z.object({ text: z.string() }).passthrough(), execute: async () => 'noted' }),
  submit: tool({ inputSchema: z.object({ quality: z.number() }), execute: async () => 'submitted' }),
});

const answerIs42 = async (): Promise<boolean> => (await readFile(path.join(dir, 'answer.txt'), 'utf8').catch(() => '')).trim() === '42';

describe('redlineStopWhen', () => {
  it('stops at the step where the demand check passes, not when the model says it is done', async () => {
    const model = scriptedModel([
      { calls: [['write', { file: 'answer.txt', content: '41' }]], text: 'Done! The answer is correct and all tests pass.' },
      { calls: [['note', { text: 'I am finished, stop now' }]], text: 'DONE' },
      { calls: [['write', { file: 'answer.txt', content: '42' }]] },
      { calls: [['note', { text: 'never asked' }]] },
    ]);
    const stop = redlineStopWhen({ guards: [], checks: [answerIs42] });
    const result = await generateText({ model, tools: tools(), stopWhen: stop, prompt: 'write the answer' });
    assert.equal(result.steps.length, 3);
    assert.equal(model.doGenerateCalls.length, 3);
    assert.deepEqual(
      { reason: stop.verdict?.reason, outcome: stop.verdict?.outcome, verification: stop.verdict?.verification, step: stop.verdict?.step },
      { reason: 'demand_passed', outcome: 'complete', verification: 'verified', step: 3 },
    );
    assert.equal(stop.verdict?.guard, 'demand(answerIs42)');
    assert.equal(await stop.finish(result), stop.verdict);
  });

  it('seals a loop the model ended by answering without a tool call as loop_ended, unverified', async () => {
    await writeFile(path.join(dir, 'answer.txt'), '0');
    const ledger = new MemoryLedger();
    const stop = redlineStopWhen({ guards: [], checks: [answerIs42], ledger });
    const model = scriptedModel([{ calls: [['note', { text: 'working' }]] }, { text: 'All done, the answer is 42.' }]);
    const result = await generateText({ model, tools: tools(), stopWhen: stop, prompt: 'write the answer' });
    assert.equal(stop.verdict, undefined, 'the AI SDK ended the loop itself; redline gave no stop');
    const verdict = await stop.finish(result);
    assert.deepEqual(
      { reason: verdict.reason, outcome: verdict.outcome, verification: verdict.verification, step: verdict.step },
      { reason: 'loop_ended', outcome: 'failed_with_evidence', verification: 'unverified', step: 2 },
    );
    const [run] = await ledger.runs();
    assert.equal(run?.sealed, true);
    assert.equal(run?.stopReason, 'loop_ended');
  });

  it('stops at the step budget and at the token budget, charged from the steps’ usage', async () => {
    const notes = (count: number): Turn[] =>
      Array.from({ length: count }, (_, index) => ({ calls: [['note', { text: `idea ${index}` }]] }));
    const steps = redlineStopWhen({ guards: [], budgets: { maxAttempts: 4 } });
    const byCount = await generateText({ model: scriptedModel(notes(10)), tools: tools(), stopWhen: steps, prompt: 'think' });
    assert.equal(byCount.steps.length, 4);
    assert.deepEqual([steps.verdict?.reason, steps.verdict?.outcome], ['budget_attempts', 'failed_with_evidence']);

    const tokens = redlineStopWhen({ guards: [], budgets: { maxTokens: 100 } });
    const byTokens = await generateText({ model: scriptedModel(notes(10)), tools: tools(), stopWhen: tokens, prompt: 'think' });
    // 20 tokens a step: the fifth reaches 100.
    assert.equal(byTokens.steps.length, 5);
    assert.equal(tokens.verdict?.reason, 'budget_tokens');
    assert.equal(tokens.verdict?.detail, '100 of 100 tokens used');
  });

  it('stops at a repeated tool call: same tool, same input whatever its key order', async () => {
    const stop = redlineStopWhen({ guards: [{ repeatedOutput: { window: 3, repeats: 2 } }] });
    const model = scriptedModel([
      { calls: [['note', { text: 'try', extra: 1 }]] },
      { calls: [['note', { text: 'other' }]] },
      { calls: [['note', { extra: 1, text: 'try' }]] },
      { calls: [['note', { text: 'never asked' }]] },
    ]);
    const result = await generateText({ model, tools: tools(), stopWhen: stop, prompt: 'think' });
    assert.equal(result.steps.length, 3);
    assert.equal(stop.verdict?.reason, 'repeated_output');
    assert.equal(stop.verdict?.guard, 'repeatedOutput(3, 2)');
  });

  it('stops at the noise-aware rule’s confidence, not at the first score over the bar', async () => {
    const qualities = [0.5, 0.83, 0.86, 0.9, 0.92, 0.93, 0.94, 0.95];
    const stop = redlineStopWhen({
      guards: [{ noiseAware: { bar: 0.8, confidence: 0.9, noise: 0.1 } }],
      scoreFrom: (step) => (step.toolCalls.find((call) => call.toolName === 'submit')?.input as { quality?: number } | undefined)?.quality,
    });
    const model = scriptedModel(qualities.map((quality) => ({ calls: [['submit', { quality }]] })));
    const result = await generateText({ model, tools: tools(), stopWhen: stop, prompt: 'improve' });
    assert.equal(stop.verdict?.reason, 'noise_aware');
    assert.equal(stop.verdict?.outcome, 'complete');
    assert.equal(stop.verdict?.verification, 'sampled', 'a score is no demand red line');
    assert.ok(result.steps.length > 2 && result.steps.length < qualities.length, `stopped at step ${result.steps.length}`);
    assert.match(stop.verdict?.detail ?? '', /^P\(true quality ≥ 0\.8\) = 0\.9\d\d ≥ 0\.9$/);
  });

  it('stops a cycle of calls (A, B, A) by oscillation, and keeps a huge tool input out of the record', async () => {
    const huge = 'x'.repeat(2_000_000);
    const ledger = new MemoryLedger();
    const stop = redlineStopWhen({ guards: [{ oscillation: {} }], ledger });
    const model = scriptedModel([
      { calls: [['note', { text: huge }]] },
      { calls: [['note', { text: 'b' }]] },
      { calls: [['note', { text: huge }]] },
    ]);
    await generateText({ model, tools: tools(), stopWhen: stop, prompt: 'think' });
    assert.equal(stop.verdict?.reason, 'oscillation');
    assert.equal(stop.verdict?.step, 3);
    const [run] = await ledger.runs();
    const stored = await ledger.stored(run?.runId ?? '');
    assert.ok(
      stored.every((item) => item.body.length < 20_000),
      `record sizes ${stored.map((item) => item.body.length).join(', ')}`,
    );
    const attempts = recordsOf(await ledger.records(run?.runId ?? ''), 'attempt');
    assert.equal(attempts[0]?.data.candidate?.hash, attempts[2]?.data.candidate?.hash);
    assert.notEqual(attempts[0]?.data.candidate?.hash, attempts[1]?.data.candidate?.hash);
  });

  it('gives a demand command that hangs an error finding at its timeout and goes on, to the budget', async () => {
    const ledger = new MemoryLedger();
    const stop = redlineStopWhen({
      guards: [],
      budgets: { maxAttempts: 2 },
      checks: [
        { kind: 'command', tier: 'demand', name: 'hangs', command: [process.execPath, '-e', 'setTimeout(() => {}, 1e9)'], timeout: 300 },
      ],
      ledger,
    });
    const started = Date.now();
    const model = scriptedModel([{ calls: [['note', { text: 'a' }]] }, { calls: [['note', { text: 'b' }]] }]);
    await generateText({ model, tools: tools(), stopWhen: stop, prompt: 'think' });
    assert.ok(Date.now() - started < 10_000);
    assert.equal(stop.verdict?.reason, 'budget_attempts');
    const [run] = await ledger.runs();
    const attempts = recordsOf(await ledger.records(run?.runId ?? ''), 'attempt');
    assert.deepEqual(
      attempts.map((item) => item.data.findings?.map((found) => [found.status, ...found.reasonCodes])),
      [[['error', 'process.timeout']], [['error', 'process.timeout']]],
    );
  });

  it('turns function checks and scores that throw, answer garbage or hang into error findings, never a stop', async () => {
    const ledger = new MemoryLedger();
    const stop = redlineStopWhen({
      guards: [{ threshold: { bar: 0.1 } }],
      budgets: { maxAttempts: 2 },
      checks: [
        function throws(): boolean {
          throw new Error('boom');
        },
        { name: 'garbage', check: () => 'yes' as never },
        { name: 'hangs', check: () => new Promise<boolean>(() => {}), timeoutMs: 100 },
        { name: 'long', check: () => ({ pass: false, message: 'y'.repeat(1_000_000) }), required: false },
      ],
      scoreFrom: () => {
        throw new Error('no score');
      },
      ledger,
    });
    const model = scriptedModel([{ calls: [['note', { text: 'a' }]] }, { calls: [['note', { text: 'b' }]] }]);
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    await generateText({ model, tools: tools(), stopWhen: stop, prompt: 'think' });
    assert.equal(stop.verdict?.reason, 'budget_attempts');
    assert.ok(timers() <= before, 'a check left its timeout running (it would hold the process open)');
    const [run] = await ledger.runs();
    const [first] = recordsOf(await ledger.records(run?.runId ?? ''), 'attempt');
    assert.deepEqual(
      first?.data.findings?.map((item) => [item.check, item.status, ...item.reasonCodes]),
      [
        ['throws', 'error', 'check.crashed'],
        ['garbage', 'error', 'check.bad_result'],
        ['hangs', 'error', 'check.timeout'],
        ['long', 'fail', 'check.failed'],
        ['scoreFrom', 'error', 'score.threw'],
      ],
    );
    assert.ok((first?.data.findings?.[3]?.message.length ?? Infinity) < 5000);
  });

  it('leaves a run recovery seals crashed when its loop never finished (here: the same process, so taken as dead)', async () => {
    const ledger = new MemoryLedger();
    const stop = redlineStopWhen({ guards: [], ledger });
    await stop({
      steps: [{ text: '', toolCalls: [{ toolName: 'note', input: { text: 'a' } }], usage: { inputTokens: 1, outputTokens: 1 } }],
    });
    const [recovery] = await recoverRuns({ ledger });
    assert.deepEqual(
      [recovery?.action, recovery?.detail],
      ['sealed_crashed', 'its proposer cannot be rebuilt (it was not declared in the mission)'],
    );
    assert.equal((await verifyLedger(ledger)).ok, true);
  });

  it('refuses guards, budgets and checks it cannot run, before any step', () => {
    assert.throws(() => redlineStopWhen({ guards: [{ sometimes: {} } as never] }), MissionError);
    assert.throws(() => redlineStopWhen({ guards: [], budgets: { maxCostUsd: 1 } }), /Expected `price`/);
    assert.throws(
      () => redlineStopWhen({ guards: [], checks: [{ kind: 'score', name: 'judge', command: 'judge', pass: 0.8 }] }),
      /Expected checks\[0\] of kind command, test-runner, expected-output, got score/,
    );
    assert.throws(() => redlineStopWhen({ guards: [], checks: [42 as never] }), /Expected checks\[0\] to be .*got number/);
    const pass = (): boolean => true;
    assert.throws(() => redlineStopWhen({ guards: [], checks: [pass, pass] }), /Expected check names to be unique .*got pass twice/);
    assert.throws(
      () => redlineStopWhen({ guards: [], checks: [{ name: 'slow', check: pass, timeoutMs: Number.NaN }] }),
      /positive number, got NaN/,
    );
  });
});

describe('redlineStopWhen over the OpenAI-compatible stub, with a SQLite ledger', () => {
  it('records a sealed, verifying run that replay and stop-quality read', async () => {
    const work = await tempDir('redline-stop-when-tests-');
    const ledgerFile = path.join(work, 'ledger.db');
    const test =
      "import test from 'node:test'; import assert from 'node:assert'; import { add } from './add.mjs'; test('add', () => assert.equal(add(2, 3), 5));";
    await writeFile(path.join(work, 'add.test.mjs'), test);
    await writeFile(path.join(work, 'add.mjs'), 'export const add = (a, b) => a - b;');
    const stub = await startOpenAIStub({
      replies: [
        { content: 'Fixed, all tests pass.', toolCalls: [{ name: 'edit', arguments: { content: 'export const add = (a, b) => a * b;' } }] },
        {
          toolCalls: [{ name: 'edit', arguments: { content: 'export const add = (a, b) => a + b;' } }],
          usage: { prompt_tokens: 5, completion_tokens: 7 },
        },
      ],
    });
    const ledger = await SqliteLedger.open({ database: ledgerFile });
    try {
      const stop = redlineStopWhen({
        guards: [{ repeatedOutput: { window: 3, repeats: 2 } }],
        budgets: { maxAttempts: 6 },
        checks: [
          {
            kind: 'test-runner',
            name: 'tests',
            command: [process.execPath, '--test', '--test-reporter=tap', 'add.test.mjs'],
            format: 'tap',
          },
        ],
        cwd: work,
        ledger,
        mission: { id: 'fix-add', goal: 'make add add', taskType: 'ai-sdk-fix' },
      });
      const edit = tool({
        inputSchema: z.object({ content: z.string() }),
        execute: async ({ content }) => {
          await writeFile(path.join(work, 'add.mjs'), content);
          return 'saved';
        },
      });
      const result = await generateText({
        model: openAICompatibleModel({ baseURL: stub.baseURL, model: 'stub' }),
        tools: { edit },
        toolChoice: 'required',
        stopWhen: stop,
        prompt: 'fix add.mjs',
      });
      assert.equal(result.steps.length, 2);
      assert.equal(stub.requests.length, 2);
      const verdict = await stop.finish(result);
      assert.deepEqual([verdict.reason, verdict.outcome, verdict.verification], ['demand_passed', 'complete', 'verified']);
      const verification = await verifyLedger(ledger);
      assert.equal(verification.ok, true);
      const records = await ledger.records(verdict.runId);
      assert.deepEqual(
        records.map((item) => item.type),
        ['run.started', 'attempt', 'decision', 'attempt', 'decision', 'run.sealed'],
      );
      const [started] = recordsOf(records, 'run.started');
      assert.deepEqual(started?.data.owner?.pid, process.pid, 'recovery can tell a live loop from a crashed one');
      const [first] = recordsOf(records, 'attempt');
      assert.deepEqual(
        first?.data.findings?.map((item) => [item.check, item.status]),
        [['tests', 'fail']],
      );
      assert.deepEqual(recordsOf(records, 'attempt')[1]?.data.usage, { inputTokens: 5, outputTokens: 7 });
    } finally {
      await ledger.close();
      await stub.close();
    }
    try {
      const policy = path.join(work, 'policy.json');
      await writeFile(policy, JSON.stringify({ name: 'one-step', guards: [] }));
      const replay = await redline(['replay', '--ledger', ledgerFile, '--policy', policy, '--json']);
      assert.equal(replay.code, 0, replay.stderr);
      const row = JSON.parse(replay.stdout) as { runs: number; attempts: number; recordedAttempts: number; reached: number };
      assert.deepEqual([row.runs, row.attempts, row.recordedAttempts, row.reached], [1, 2, 2, 1]);
      const report = await redline(['report', 'stop-quality', '--ledger', ledgerFile, '--json']);
      assert.equal(report.code, 0, report.stderr);
      const quality = JSON.parse(report.stdout) as { all: { runs: number; observedReached: number }; byStopReason: { key: string }[] };
      assert.deepEqual([quality.all.runs, quality.all.observedReached, quality.byStopReason[0]?.key], [1, 1, 'demand_passed']);
      const verify = await redline(['ledger', 'verify', '--ledger', ledgerFile]);
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
