import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { exportCommand, showCommand } from '../../src/cli/ledger-command.js';
import { spendCommand } from '../../src/cli/report-command.js';
import { runCommand, type Output } from '../../src/cli/run-command.js';
import { firstAttemptIn } from '../helpers/records.js';
import { startModelStub, type ModelStub } from '../metering/model-stub.js';
import { mathMission } from '../helpers/math-mission.js';
import { tempDir } from '../helpers/workspace.js';

// Hard spend limits during an attempt: an agent that loops on tool calls is ended mid-attempt when the run's
// budget is spent, through the metering endpoint (or its own usage log), and the run is sealed with the spend.

const LOOPING_AGENT = `node ${path.resolve(import.meta.dirname, '../fixtures/agents/looping-agent.mjs')}`;
const USAGE_LOG_AGENT = path.resolve(import.meta.dirname, '../fixtures/agents/usage-log-agent.sh');
const SECRET = 'sk-live-9f8e7d6c5b4a39281706';

const scratch = await tempDir('redline-meter-scratch-');
const saved = { scratch: process.env.REDLINE_SCRATCH, key: process.env.OPENAI_API_KEY };
process.env.REDLINE_SCRATCH = scratch;
// The agent finds its key where agents do: in the environment redline passes through.
process.env.OPENAI_API_KEY = SECRET;
const stubs: ModelStub[] = [];
after(async () => {
  for (const [name, value] of [
    ['REDLINE_SCRATCH', saved.scratch],
    ['OPENAI_API_KEY', saved.key],
  ] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  await Promise.all(stubs.map((stub) => stub.close()));
});

function capture(): Output & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, print: (line) => out.push(line), progress: (line) => err.push(line) };
}

describe('a looping agent under a spend budget', () => {
  it('is ended mid-attempt by maxCostUsd through the meter; the run is sealed budget_cost with the spend, and the key is nowhere in the ledger', async () => {
    // Each model call reports 2,000 prompt and 500 output tokens of gpt-4o: $0.01. The budget is spent by the
    // fourth call; the fifth is refused and the agent ended, in its first attempt of three.
    const stub = await startModelStub({ turn: () => ({ input: 2000, output: 500 }) });
    stubs.push(stub);
    const { file, ledger } = await mathMission({ budgets: { maxAttempts: 3, maxCostUsd: 0.035 } });
    const output = capture();
    const code = await runCommand(file, { agent: LOOPING_AGENT, meterUpstream: `${stub.url}/v1`, json: true }, output);
    assert.equal(code, 1, output.err.join('\n'));
    const summary = JSON.parse(output.out[0] as string) as {
      runId: string;
      outcome: string;
      stopReason: string;
      attempts: number;
      spent: unknown;
    };
    assert.deepEqual(
      [summary.outcome, summary.stopReason, summary.attempts, summary.spent],
      ['failed_with_evidence', 'budget_cost', 1, { inputTokens: 8000, outputTokens: 2000, costUsd: 0.04 }],
    );
    assert.equal(stub.requests.length, 4, 'the refused call never reached the endpoint');
    assert.equal(stub.requests[0]?.headers.authorization, `Bearer ${SECRET}`, 'the key went through untouched');

    const attempt = await firstAttemptIn(ledger, summary.runId);
    assert.deepEqual(attempt.usage, { inputTokens: 8000, outputTokens: 2000, costUsd: 0.04 });
    const [finding] = attempt.findings as { reasonCodes: string[]; message: string }[];
    assert.deepEqual(finding?.reasonCodes, ['proposer.budget_spent']);
    assert.match(
      finding?.message ?? '',
      /the agent was ended when its attempt had spent \$0\.04, the \$0\.035 the run had left \(maxCostUsd\)/,
    );
    const meter = (attempt.account as { meter: { ended: string; calls: { status: number; refused?: string; bytesUp: number }[] } }).meter;
    assert.equal(meter.ended, 'budget_cost');
    assert.deepEqual(
      meter.calls.slice(0, 5).map((call) => call.refused ?? call.status),
      [200, 200, 200, 200, 'budget_cost'],
    );

    const shown = capture();
    assert.equal(await showCommand(summary.runId, { ledger }, shown), 0);
    const story = shown.out.join('\n');
    assert.match(story, /sealed failed_with_evidence \/ unverified \/ budget_cost after 1 attempt\(s\)/);
    assert.match(story, /^ {2}spent 10,000 tokens \(8,000 in, 2,000 out\), \$0\.04$/m);
    assert.match(
      story,
      /\d+ model calls through the meter \(responses ×\d+\): 8,000 in, 2,000 out tokens, \$0\.04; ended the agent: budget_cost/,
    );

    const text = capture();
    await runCommand(file, { agent: LOOPING_AGENT, meterUpstream: `${stub.url}/v1` }, text);
    assert.match(text.out.join('\n'), /^spent\s+10,000 tokens \(8,000 in, 2,000 out\), \$0\.04$/m);

    // Two runs of the same spend: `redline report spend` lists each and their sum.
    const report = capture();
    assert.equal(await spendCommand({ ledger, json: true }, report), 0);
    const { runs, total } = JSON.parse(report.out[0] as string) as {
      runs: { stopReason: string; modelCalls: number }[];
      total: Record<string, number>;
    };
    assert.deepEqual(
      runs.map((row) => row.stopReason),
      ['budget_cost', 'budget_cost'],
    );
    assert.ok(runs.every((row) => row.modelCalls >= 5));
    assert.deepEqual(
      [total.runs, total.attempts, total.inputTokens, total.outputTokens, Number(total.costUsd?.toFixed(6))],
      [2, 2, 16_000, 4000, 0.08],
    );
    const table = capture();
    assert.equal(await spendCommand({ ledger }, table), 0);
    assert.match(
      table.out[0] ?? '',
      /^2 sealed run\(s\) in .*: 20,000 tokens \(16,000 in, 4,000 out\), \$0\.08, \d+ metered model call\(s\)$/,
    );
    assert.match(
      table.out.join('\n'),
      new RegExp(`^${summary.runId} +math +failed_with_evidence / budget_cost +1 +8,000 +2,000 +\\$0\\.04 +\\d+$`, 'm'),
    );

    const exported = capture();
    assert.equal(await exportCommand({ ledger, format: 'jsonl' }, exported), 0);
    assert.ok(exported.out.length > 0);
    assert.ok(!exported.out.join('\n').includes(SECRET.slice(3)), 'no key in the ledger');
  });

  it("prices from the mission's prices file and ends the agent at maxTokens", async () => {
    const stub = await startModelStub({ turn: () => ({ input: 900, output: 100 }) });
    stubs.push(stub);
    const { file, ledger } = await mathMission({
      budgets: { maxAttempts: 2, maxTokens: 2500 },
      proposer: {
        kind: 'agent',
        command: LOOPING_AGENT,
        meter: { upstream: `${stub.url}/v1`, prices: 'prices.yaml' },
      },
    });
    await writeFile(path.join(path.dirname(file), 'prices.yaml'), 'house-model-7: { input: 10, output: 100 }\n');
    const previous = process.env.AGENT_MODEL;
    process.env.AGENT_MODEL = 'house-model-7';
    try {
      const output = capture();
      assert.equal(await runCommand(file, { json: true }, output), 1, output.err.join('\n'));
      const summary = JSON.parse(output.out[0] as string) as { runId: string; stopReason: string; spent: unknown };
      // Three calls of 1,000 tokens: the third reaches the 2,500; each costs 900 × $10 + 100 × $100 per million.
      assert.equal(summary.stopReason, 'budget_tokens');
      assert.deepEqual(summary.spent, { inputTokens: 2700, outputTokens: 300, costUsd: 3 * 0.019 });
      const attempt = await firstAttemptIn(ledger, summary.runId);
      assert.deepEqual((attempt.findings as { reasonCodes: string[] }[])[0]?.reasonCodes, ['proposer.budget_spent']);
    } finally {
      if (previous === undefined) delete process.env.AGENT_MODEL;
      else process.env.AGENT_MODEL = previous;
    }
  });

  it('a raw command reporting its spend line by line to $REDLINE_USAGE_LOG is ended the same way', async () => {
    const { file, ledger } = await mathMission({
      budgets: { maxAttempts: 3, maxCostUsd: 0.035 },
      proposer: { kind: 'agent', command: USAGE_LOG_AGENT, reportsTokens: true, reportsCost: true },
    });
    const output = capture();
    assert.equal(await runCommand(file, { json: true }, output), 1, output.err.join('\n'));
    const summary = JSON.parse(output.out[0] as string) as {
      runId: string;
      stopReason: string;
      attempts: number;
      spent: { costUsd: number };
    };
    assert.deepEqual([summary.stopReason, summary.attempts], ['budget_cost', 1]);
    // Ended once its lines reached the budget: the fourth line, or one of the few it writes (one each 0.1 s)
    // before the kill lands on a loaded machine; an agent left running would write on to the wall clock.
    const cost = Number(summary.spent.costUsd.toFixed(4));
    assert.ok(cost >= 0.04 && cost <= 0.09, JSON.stringify(summary.spent));
    const attempt = await firstAttemptIn(ledger, summary.runId);
    assert.match((attempt.findings as { message: string }[])[0]?.message ?? '', /, by its usage log$/);
  });
});
