import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { recordsOf } from '../../src/ledger/run-records.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { agentProposer, type AgentProposerOptions } from '../../src/proposers/agent-proposer.js';
import { startModelStub, type ModelStub } from '../metering/model-stub.js';
import { tempWorkspace } from '../helpers/workspace.js';

const CALLING_AGENT = `node ${path.resolve(import.meta.dirname, '../fixtures/agents/calling-agent.mjs')}`;
const stubs: ModelStub[] = [];
after(() => Promise.all(stubs.map((stub) => stub.close())));

/** Runs `agent` on a workspace whose demand check passes once src/a.txt says "fixed". */
async function runAgent({
  command,
  budgets = {},
  meter,
  ...options
}: Omit<AgentProposerOptions, 'meter'> & {
  budgets?: Record<string, number>;
  meter?: Partial<NonNullable<AgentProposerOptions['meter']>> | false;
}) {
  const stub = await startModelStub({ turn: () => ({ input: 2000, output: 500 }) });
  stubs.push(stub);
  const root = await tempWorkspace({ 'ws/src/a.txt': 'broken\n' });
  const ledger = new MemoryLedger();
  const result = await runMission({
    mission: defineMission({
      id: 'metered-agent',
      goal: 'fix a.txt',
      workspace: path.join(root, 'ws'),
      scope: ['src/**'],
      budgets: { maxAttempts: 2, ...budgets },
      stopPolicy: { guards: [] },
      checks: [{ name: 'fixed', kind: 'command', tier: 'demand', command: 'grep -q fixed src/a.txt' }],
    }),
    // The base URL the agent would be given: Anthropic clients add `/v1/messages`, OpenAI's `/responses` to a `/v1` base.
    proposer: agentProposer({
      command,
      ...options,
      ...(meter === false ? {} : { meter: { upstream: command.includes(' messages ') ? stub.url : `${stub.url}/v1`, ...meter } }),
    }),
    ledger,
  });
  const attempts = recordsOf(await ledger.records(result.runId), 'attempt').map((record) => record.data);
  return { result, attempts, stub, root };
}

describe('an agent behind the meter', () => {
  it('has its model calls metered and charged; the meter stops with the attempt', async () => {
    const urlFile = path.join(await tempWorkspace({}), 'meter-url');
    process.env.METER_URL_FILE = urlFile;
    try {
      const { result, attempts, stub } = await runAgent({ command: `${CALLING_AGENT} messages 2 claude-sonnet-4-5-20250929` });
      assert.deepEqual([result.outcome, result.attempts], ['complete', 1]);
      // claude-sonnet-4: 2 × (2,000 × $3 + 500 × $15) per million.
      const usage = { inputTokens: 4000, outputTokens: 1000, costUsd: (2 * (2000 * 3 + 500 * 15)) / 1e6 };
      assert.deepEqual(attempts[0]?.usage, usage);
      assert.deepEqual(result.counters.costUsd, usage.costUsd);
      const meter = attempts[0]?.account?.meter;
      assert.deepEqual(
        meter?.calls.map((call) => [call.protocol, call.model, call.stream, call.status, call.inputTokens, call.outputTokens]),
        [
          ['messages', 'claude-sonnet-4-5-20250929', true, 200, 2000, 500],
          ['messages', 'claude-sonnet-4-5-20250929', true, 200, 2000, 500],
        ],
      );
      assert.equal(stub.requests[0]?.headers['x-api-key'], 'sk-ant-test');
      const url = await readFile(urlFile, 'utf8');
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      await assert.rejects(fetch(`${url}/v1/messages`, { method: 'POST', body: '{}' }), 'the meter stopped listening after the attempt');
    } finally {
      delete process.env.METER_URL_FILE;
    }
  });

  it('keeps a proposal whose last call reached the budget when the agent asked for nothing more', async () => {
    // Three calls of $0.01 each against $0.025: the third reached it; the agent then fixed the file and exited.
    const { result, attempts } = await runAgent({ command: `${CALLING_AGENT} chat 3`, budgets: { maxCostUsd: 0.025 } });
    assert.deepEqual([result.outcome, result.stopReason], ['complete', 'demand_passed']);
    assert.equal(attempts[0]?.account?.meter?.ended, undefined);
    assert.ok(result.counters.costUsd >= 0.025);
  });

  it('ends an agent calling a model with no price under a cost budget: proposer.no_price', async () => {
    const { result, attempts, stub } = await runAgent({
      command: `${CALLING_AGENT} responses 1 house-model-7`,
      budgets: { maxCostUsd: 1 },
    });
    assert.equal(result.outcome, 'failed_with_evidence');
    assert.deepEqual(attempts[0]?.findings?.[0]?.reasonCodes, ['proposer.no_price']);
    assert.match(attempts[0]?.findings?.[0]?.message ?? '', /the model "house-model-7", which has no price/);
    assert.equal(stub.requests.length, 0);
  });

  it("prices a model from the caller's table", async () => {
    const { attempts } = await runAgent({
      command: `${CALLING_AGENT} responses 1 house-model-7`,
      budgets: { maxCostUsd: 1 },
      meter: { prices: { 'house-model-7': { input: 1, output: 4 } } },
    });
    assert.deepEqual(attempts[0]?.usage, { inputTokens: 2000, outputTokens: 500, costUsd: 0.004 });
  });

  it('reports tokens and cost, so a mission with maxTokens and maxCostUsd may run it', () => {
    assert.deepEqual(agentProposer({ command: 'true', meter: { upstream: 'https://api.openai.com/v1' } }).capabilities, {
      reportsTokens: true,
      reportsCost: true,
    });
    assert.throws(
      () => agentProposer({ command: 'true', meter: { upstream: 'api.openai.com' } }),
      /Expected the meter's upstream to be an http\(s\) URL/,
    );
  });
});

describe("an agent's own usage reports", () => {
  it('its usage file is its final word over the lines of its usage log', async () => {
    const { attempts } = await runAgent({
      command: `echo '{"costUsd":0.5}' >> "$REDLINE_USAGE_LOG"; echo '{"inputTokens":7,"costUsd":0.25}' > "$REDLINE_USAGE_FILE"; echo fixed > src/a.txt`,
      meter: false,
      reportsCost: true,
    });
    assert.deepEqual(attempts[0]?.usage, { inputTokens: 7, costUsd: 0.25 });
  });

  it('the lines of its usage log are its usage when it writes no usage file; a bad line fails the attempt', async () => {
    const counted = await runAgent({
      command: `printf '{"inputTokens":5,"outputTokens":1}\\n{"costUsd":0.5}\\n' >> "$REDLINE_USAGE_LOG"; echo fixed > src/a.txt`,
      meter: false,
      reportsCost: true,
    });
    assert.deepEqual(counted.attempts[0]?.usage, { inputTokens: 5, outputTokens: 1, costUsd: 0.5 });
    const bad = await runAgent({
      command: `printf '{"inputTokens":5}\\n{"dollars":1}\\n' >> "$REDLINE_USAGE_LOG"; echo fixed > src/a.txt`,
      meter: false,
    });
    assert.deepEqual(bad.attempts[0]?.findings?.[0]?.reasonCodes, ['proposer.bad_output']);
    assert.match(bad.attempts[0]?.findings?.[0]?.message ?? '', /line 2 of the usage log has a member "dollars"/);
    // What the good lines reported is charged all the same.
    assert.deepEqual(bad.attempts[0]?.usage, { inputTokens: 5, outputTokens: 0 });
  });
});
