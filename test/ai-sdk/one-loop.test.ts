import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateText, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { redlineStopWhen } from '../../src/ai-sdk/stop-when.js';
import { SCORE_CHECK } from '../../src/ai-sdk/stop-when-plan.js';
import { finding, type Check } from '../../src/core/check.js';
import type { RunRecord } from '../../src/ledger/ledger.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';

// One proposer — a function of the attempt number — run by redline's loop (runMission) and by the AI SDK's
// tool loop under redlineStopWhen: both record through the same recorder, judge asking and seal, so the
// two runs' records have the same types, in the same order, with the same fields.
const answer = (attempt: number): string => (attempt === 1 ? '41' : '42');
const scoreOf = (text: string | undefined): number => (text === '42' ? 1 : 0.3);
const guards = [{ threshold: { bar: 0.8 } }];
const fixed = { now: () => 1_767_225_600_000, generateId: () => 'one-loop' };

/** The shape of a record stream: each record's type, seq and the fields of its data. */
const shapes = (records: readonly RunRecord[]) =>
  records.map((record) => ({ type: record.type, seq: record.seq, fields: Object.keys(record.data).sort() }));

/** The AI SDK's mock model: step n calls `write` with the proposer's answer for attempt n. */
function model(): MockLanguageModelV3 {
  let call = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      call += 1;
      return {
        content: [
          { type: 'tool-call' as const, toolCallId: `call-${call}`, toolName: 'write', input: JSON.stringify({ content: answer(call) }) },
        ],
        finishReason: { unified: 'tool-calls' as const, raw: undefined },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 10, text: 10, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
}

describe('one loop', () => {
  it('records a function proposer run by runMission and by generateText + redlineStopWhen with the same shapes', async () => {
    const missionLedger = new MemoryLedger();
    const score: Check = {
      ...SCORE_CHECK,
      run: async ({ candidate }) => {
        const value = scoreOf(candidate.files['answer.txt'] ?? undefined);
        return [finding(SCORE_CHECK, 'pass', [], `score ${value}`, { score: value })];
      },
    };
    const result = await runMission({
      mission: defineMission({ id: 'one-loop', goal: 'answer 42', stopPolicy: { guards } }),
      proposer: functionProposer(
        ({ attempt }) => ({ files: { 'answer.txt': answer(attempt) }, usage: { inputTokens: 10, outputTokens: 10 } }),
        {
          reportsTokens: true,
        },
      ),
      checks: [score],
      ledger: missionLedger,
      _internal: fixed,
    });

    const sdkLedger = new MemoryLedger();
    const stop = redlineStopWhen({
      guards,
      mission: { id: 'one-loop', goal: 'answer 42' },
      scoreFrom: (step) => scoreOf((step.toolCalls[0]?.input as { content?: string } | undefined)?.content),
      ledger: sdkLedger,
      _internal: fixed,
    });
    const tools = { write: tool({ inputSchema: z.object({ content: z.string() }), execute: async () => 'written' }) };
    const verdict = await stop.finish(await generateText({ model: model(), tools, stopWhen: stop, prompt: 'answer' }));

    assert.deepEqual(
      [verdict.outcome, verdict.verification, verdict.reason, verdict.step],
      [result.outcome, result.verification, result.stopReason, result.attempts],
    );
    assert.deepEqual([result.outcome, result.verification, result.stopReason], ['complete', 'sampled', 'threshold']);
    const loopRecords = await missionLedger.records(result.runId);
    assert.deepEqual(shapes(await sdkLedger.records(verdict.runId)), shapes(loopRecords));
    assert.deepEqual(
      loopRecords.map((record) => record.type),
      ['run.started', 'attempt', 'decision', 'attempt', 'decision', 'run.sealed'],
    );
  });
});
