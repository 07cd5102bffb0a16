import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { finding, type Check } from '../../src/core/check.js';
import { functionJudge } from '../../src/judge/judge.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { resumeRun } from '../../src/loop/resume.js';
import { runMission } from '../../src/loop/run-mission.js';
import { loadMission } from '../../src/mission/load.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import type { Proposer } from '../../src/proposers/proposer.js';
import { MAX_ATTRIBUTE_LENGTH } from '../../src/telemetry/span-text.js';
import { dyingAfter } from '../helpers/ledgers.js';
import { memoryTracing, only, outline } from './tracing.js';

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples');

/** A required demand check that passes when the candidate's value is `expected`. */
function valueIs(expected: unknown, name = 'value'): Check {
  const check = { name, stage: 'fast' as const, tier: 'demand' as const, required: true };
  return {
    ...check,
    run: async ({ candidate }) => [
      candidate.value === expected
        ? finding(check, 'pass', [], 'matches')
        : finding(check, 'fail', ['value.differs', 'value.wrong'], 'differs'),
    ],
  };
}

describe('run spans', () => {
  it("exports a demo mission's run as a run span with a span per attempt, proposal, check and decision", async () => {
    const { tracer, spans, open } = memoryTracing();
    const ledger = new MemoryLedger();
    const result = await runMission({ mission: await loadMission(path.join(EXAMPLES, 'is-even/mission.yaml')), ledger, tracer });
    assert.deepEqual([result.outcome, result.attempts], ['complete', 2]);
    const attempt = [
      '  redline.attempt',
      '    invoke_agent replay:attempts.json',
      '    execute_tool scope',
      '    execute_tool scope',
      '    execute_tool tests',
      '    redline.decide',
    ];
    assert.deepEqual(outline(spans()), [
      'invoke_agent redline',
      '  redline.baseline',
      '    execute_tool scope',
      '    execute_tool scope',
      '    execute_tool tests',
      '    redline.decide',
      ...attempt,
      ...attempt,
    ]);
    assert.equal(open.size, 0, 'every span ended');

    const run = only(spans(), 'invoke_agent redline');
    const stored = await ledger.stored(result.runId);
    assert.deepEqual(run.attributes, {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'redline',
      'gen_ai.conversation.id': result.runId,
      'redline.mission.id': 'is-even',
      'redline.resumed': false,
      'redline.run.id': result.runId,
      'redline.outcome': 'complete',
      'redline.verification': 'verified',
      'redline.stop_reason': 'demand_passed',
      'redline.attempts': 2,
      'redline.chain.head': stored.at(-1)?.hash,
      'redline.reason_codes.count': 0,
      'gen_ai.usage.input_tokens': result.counters.inputTokens,
      'gen_ai.usage.output_tokens': result.counters.outputTokens,
    });
    assert.equal(run.status.code, SpanStatusCode.UNSET);
    assert.equal(stored.at(-1)?.type, 'run.sealed');

    const attempts = spans().filter((span) => span.name === 'redline.attempt');
    assert.deepEqual(
      attempts.map((span) => span.attributes['redline.attempt.number']),
      [1, 2],
    );
    const tests = spans().filter((span) => span.name === 'execute_tool tests');
    assert.deepEqual(
      tests.map((span) => [
        span.attributes['redline.check.status'],
        span.attributes['gen_ai.tool.name'],
        span.attributes['gen_ai.operation.name'],
      ]),
      [
        ['fail', 'tests', 'execute_tool'],
        ['fail', 'tests', 'execute_tool'],
        ['pass', 'tests', 'execute_tool'],
      ],
    );
    assert.ok(tests.every((span) => typeof span.attributes['redline.check.duration_ms'] === 'number'));
    assert.ok((tests[0]?.attributes['redline.reason_codes.count'] as number) > 0, 'the failing baseline carries its reason codes');
    const proposals = spans().filter((span) => span.name.startsWith('invoke_agent replay'));
    assert.deepEqual(
      proposals.map((span) => span.attributes['gen_ai.usage.input_tokens'] as number).reduce((a, b) => a + b),
      result.counters.inputTokens,
    );
    assert.deepEqual(
      spans()
        .filter((span) => span.name === 'redline.decide')
        .map((span) => span.attributes['redline.decision.transition']),
      ['retry', 'retry', 'accept'],
    );
  });

  it('ends a blocked run with an error status naming its stop reason', async () => {
    const { tracer, spans, open } = memoryTracing();
    const result = await runMission({ mission: await loadMission(path.join(EXAMPLES, 'scope-violation/mission.yaml')), tracer });
    assert.deepEqual([result.outcome, result.stopReason], ['blocked', 'scope_violation']);
    const run = only(spans(), 'invoke_agent redline');
    assert.equal(run.status.code, SpanStatusCode.ERROR);
    assert.match(run.status.message ?? '', /^blocked: /);
    assert.equal(run.attributes['error.type'], 'scope_violation');
    assert.equal(run.attributes['redline.outcome'], 'blocked');
    assert.equal(run.attributes['redline.guard'], result.guard);
    const scope = spans().filter((span) => span.name === 'execute_tool scope');
    assert.equal(scope.at(-1)?.attributes['redline.check.status'], 'fail', 'the scope check that blocked the run');
    assert.equal(open.size, 0);
  });

  it('ends every span of a run aborted while its proposer runs, failed', async () => {
    const { tracer, spans, open } = memoryTracing();
    const controller = new AbortController();
    const result = await runMission({
      mission: defineMission({ id: 'aborted', goal: 'g', stopPolicy: { guards: [] } }),
      proposer: functionProposer(() => {
        setTimeout(() => controller.abort(), 10);
        return new Promise(() => {});
      }),
      checks: [valueIs('ok')],
      signal: controller.signal,
      tracer,
    });
    assert.deepEqual([result.outcome, result.stopReason], ['failed_with_evidence', 'aborted']);
    assert.deepEqual(outline(spans()), [
      'invoke_agent redline',
      '  redline.baseline',
      '    execute_tool value',
      '    redline.decide',
      '  redline.attempt',
      '    invoke_agent function',
    ]);
    assert.deepEqual(
      spans()
        .slice(3)
        .map((span) => [span.name, span.status.code]),
      [
        ['invoke_agent function', SpanStatusCode.ERROR],
        ['redline.attempt', SpanStatusCode.ERROR],
        ['invoke_agent redline', SpanStatusCode.ERROR],
      ],
    );
    assert.equal(only(spans(), 'invoke_agent redline').attributes['error.type'], 'aborted');
    assert.equal(open.size, 0);
  });

  it('ends the run span failed, with the exception, when the ledger dies under a run', async () => {
    const { tracer, spans, open } = memoryTracing();
    const ledger = new MemoryLedger();
    const mission = defineMission({ id: 'crash', goal: 'g', stopPolicy: { guards: [] } });
    const values = ['a', 'ok'];
    const proposer = functionProposer(({ attempt }) => ({ value: values[attempt - 1] }));
    await assert.rejects(
      runMission({ mission, proposer, checks: [valueIs('ok')], ledger: dyingAfter(ledger, 2), tracer }),
      /process killed/,
    );
    const run = only(spans(), 'invoke_agent redline');
    assert.equal(run.status.code, SpanStatusCode.ERROR);
    assert.equal(run.events[0]?.name, 'exception');
    assert.equal(open.size, 0, 'the attempt and decision spans the crash cut through ended too');

    // The resumed run is a span of its own, marked resumed, sealing the same run.
    const [unsealed] = await ledger.runs({ unsealed: true });
    const resumed = memoryTracing();
    const result = await resumeRun({ ledger, runId: unsealed?.runId as string, proposer, checks: [valueIs('ok')], tracer: resumed.tracer });
    const span = only(resumed.spans(), 'invoke_agent redline');
    assert.deepEqual(
      [
        span.attributes['redline.resumed'],
        span.attributes['redline.resumed.from_seq'],
        span.attributes['redline.run.id'],
        span.attributes['redline.outcome'],
      ],
      [true, 2, result.runId, 'complete'],
    );
    assert.equal(resumed.open.size, 0);
  });

  it('fails the proposal span of a proposer that throws, and the run goes on', async () => {
    const { tracer, spans } = memoryTracing();
    const result = await runMission({
      mission: defineMission({ id: 'throws', goal: 'g', budgets: { maxAttempts: 2 }, stopPolicy: { guards: [] } }),
      proposer: functionProposer(({ attempt }) => {
        if (attempt === 1) throw new Error('\u001b[2Jboom');
        return { value: 'ok' };
      }),
      checks: [valueIs('ok')],
      tracer,
    });
    assert.equal(result.outcome, 'complete');
    const [first, second] = spans().filter((span) => span.name === 'invoke_agent function');
    assert.equal(first?.status.code, SpanStatusCode.ERROR);
    assert.equal(first?.attributes['error.type'], 'proposer.failed');
    assert.equal(first?.status.message, 'the proposer threw: \\x1b[2Jboom');
    assert.equal(second?.status.code, SpanStatusCode.UNSET);
  });

  it('names a model proposer and a model judge as chat spans with the model requested', async () => {
    const { tracer, spans } = memoryTracing();
    const proposer: Proposer = {
      name: 'model:gpt-4.1-mini',
      identity: { kind: 'model', name: 'gpt-4.1-mini' },
      capabilities: { reportsTokens: true, reportsCost: false },
      propose: async () => ({ value: 'ok', usage: { inputTokens: 120, outputTokens: 30 } }),
    };
    const judge = functionJudge(
      ({ attempt }) => (attempt === 0 ? { transition: 'retry', reason: 'not_yet' } : { transition: 'accept', reason: 'demand_passed' }),
      { name: 'model:judge-model' },
    );
    await runMission({ mission: defineMission({ id: 'model', goal: 'g' }), proposer, judge, checks: [valueIs('ok')], tracer });
    const chat = only(spans(), 'chat gpt-4.1-mini');
    assert.equal(chat.kind, SpanKind.CLIENT);
    assert.deepEqual(
      [
        chat.attributes['gen_ai.operation.name'],
        chat.attributes['gen_ai.request.model'],
        chat.attributes['gen_ai.usage.input_tokens'],
        chat.attributes['gen_ai.usage.output_tokens'],
      ],
      ['chat', 'gpt-4.1-mini', 120, 30],
    );
    const judged = spans().filter((span) => span.name === 'chat judge-model');
    assert.deepEqual(
      judged.map((span) => [
        span.kind,
        span.attributes['gen_ai.request.model'],
        span.attributes['redline.judge'],
        span.attributes['redline.decision.transition'],
      ]),
      [
        [SpanKind.CLIENT, 'judge-model', 'model:judge-model', 'retry'],
        [SpanKind.CLIENT, 'judge-model', 'model:judge-model', 'accept'],
      ],
    );
  });

  it('caps and spells out hostile text: a check name with terminal escapes and 100 KB', async () => {
    const { tracer, spans } = memoryTracing();
    const hostile = `\u001b]0;owned\u0007\u001b[2J\u202e${'x'.repeat(100_000)}`;
    const check = { name: hostile, stage: 'fast' as const, tier: 'demand' as const, required: true };
    await runMission({
      mission: defineMission({ id: 'hostile', goal: 'g', budgets: { maxAttempts: 1 } }),
      proposer: functionProposer(() => ({ value: 'v' })),
      checks: [{ ...check, run: async () => [finding(check, 'error', [hostile], hostile)] }],
      tracer,
    });
    const span = spans().find((item) => item.name.startsWith('execute_tool'));
    assert.ok(span !== undefined);
    const texts = [span.name, span.status.message ?? '', ...Object.values(span.attributes).filter((value) => typeof value === 'string')];
    for (const text of texts) {
      assert.ok(text.length <= MAX_ATTRIBUTE_LENGTH, `${text.length} characters`);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(text, /[\u0000-\u001f\u007f-\u009f\u202e]/);
    }
    assert.ok(span.name.startsWith('execute_tool \\x1b]0;owned\\x07\\x1b[2J\\u{202e}xxx'));
    assert.ok(span.name.endsWith('…'));
    assert.equal(span.status.code, SpanStatusCode.ERROR, 'a check that errs fails its span');
  });

  it("traces through the registered provider when no tracer is given, and not at all once it's gone", async () => {
    const { provider, spans } = memoryTracing();
    const run = () =>
      runMission({
        mission: defineMission({ id: 'global', goal: 'g' }),
        proposer: functionProposer(() => ({ value: 'ok' })),
        checks: [valueIs('ok')],
      });
    assert.ok(trace.setGlobalTracerProvider(provider));
    try {
      await run();
    } finally {
      trace.disable();
    }
    assert.deepEqual(outline(spans()), [
      'invoke_agent redline',
      '  redline.baseline',
      '    execute_tool value',
      '    redline.decide',
      '  redline.attempt',
      '    invoke_agent function',
      '    execute_tool value',
      '    redline.decide',
    ]);
    await run();
    assert.equal(spans().length, 8, 'no span without a provider');
  });
});
