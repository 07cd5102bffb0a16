import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { modelProposer } from '../../src/ai-sdk/model-proposer.js';
import { openAICompatibleModel } from '../../src/ai-sdk/openai-compatible.js';
import { ProposerError } from '../../src/errors/proposer-error.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { EMPTY_CANDIDATE } from '../../src/core/candidate.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { validateProposal } from '../../src/proposers/validate-proposal.js';
import { startOpenAIStub, type OpenAIStub } from '../../src/testing/openai-stub-server.js';
import { promptOf, proposalRequest, workspaceWith } from './proposal-request.js';

const signal = new AbortController().signal;

async function rejection(promise: Promise<unknown>): Promise<ProposerError> {
  const error = await promise.then(
    () => assert.fail('expected the proposal to fail'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ProposerError, `expected a ProposerError, got ${String(error)}`);
  return error;
}

describe('modelProposer', () => {
  let workspaceDir: string;
  before(async () => {
    workspaceDir = await workspaceWith({
      'src/add.js': 'export const add = (a, b) => a + b + 1;\n',
      'README.md': 'adds numbers',
      'logo.bin': Buffer.from([0x89, 0x00, 0x01]),
      'node_modules/dep/index.js': 'never shown',
    });
  });

  describe('against a stub that answers a proposal', () => {
    let stub: OpenAIStub;
    const files = { 'src/add.js': 'export const add = (a, b) => a + b;\n' };
    before(async () => {
      stub = await startOpenAIStub({
        replies: [{ content: JSON.stringify({ files }), usage: { prompt_tokens: 1200, completion_tokens: 300 } }],
      });
    });
    after(() => stub.close());

    it('returns the scripted files, the usage and the cost computed from the price', async () => {
      const proposer = modelProposer({ baseURL: stub.baseURL, model: 'stub-model', price: { input: 2, output: 10 }, maxRetries: 0 });
      assert.equal(proposer.name, 'model:stub-model');
      assert.deepEqual(proposer.capabilities, { reportsTokens: true, reportsCost: true });
      const proposal = await proposer.propose(proposalRequest({ workspaceDir }), { signal });
      assert.deepEqual(proposal, { files, usage: { inputTokens: 1200, outputTokens: 300, costUsd: (1200 * 2 + 300 * 10) / 1_000_000 } });
      assert.deepEqual(validateProposal(proposal), proposal);
    });

    it('sent the goal, the in-scope files, the failing finding and a JSON schema response format', () => {
      const body = stub.requests[0] as { model: string; response_format: { type: string; json_schema: { strict: boolean } } };
      const prompt = promptOf(body);
      assert.equal(body.model, 'stub-model');
      assert.equal(body.response_format.type, 'json_schema');
      assert.equal(body.response_format.json_schema.strict, false, 'strict mode would forbid the open files record');
      assert.match(prompt, /Make add\(\) return the sum of its arguments/);
      assert.match(prompt, /expected add\(2, 2\) to be 4, got 5 \(at src\/add\.js:3, test "adds"\)/);
      assert.match(prompt, /### src\/add\.js\n```\nexport const add = \(a, b\) => a \+ b \+ 1;/);
      assert.match(prompt, /attempts 4 \(this one included\), tokens 90000/);
      assert.doesNotMatch(prompt, /never shown/);
    });
  });

  it('reports no cost without a price', async () => {
    const stub = await startOpenAIStub({ replies: [{ content: '{"files":{}}', usage: { prompt_tokens: 5, completion_tokens: 2 } }] });
    try {
      const proposer = modelProposer({ baseURL: stub.baseURL, model: 'stub-model', maxRetries: 0 });
      assert.deepEqual(proposer.capabilities, { reportsTokens: true, reportsCost: false });
      assert.deepEqual(await proposer.propose(proposalRequest({ workspaceDir }), { signal }), {
        files: {},
        usage: { inputTokens: 5, outputTokens: 2 },
      });
    } finally {
      await stub.close();
    }
  });

  it('shows the latest candidate first and names the binary files and those left out of a small context', async () => {
    const stub = await startOpenAIStub({ replies: ['{"files":{}}'] });
    try {
      const candidate = {
        ...EMPTY_CANDIDATE,
        files: { 'src/add.js': 'export const add = (a, b) => a - b;\n', 'old.js': null },
        footprint: ['old.js', 'src/add.js'],
      };
      const proposer = modelProposer({ baseURL: stub.baseURL, model: 'stub-model', maxContextBytes: 40, maxRetries: 0 });
      await proposer.propose(proposalRequest({ workspaceDir, candidate }), { signal });
      const prompt = promptOf(stub.requests[0]);
      assert.match(prompt, /# Latest candidate\n[\s\S]*a - b/);
      assert.match(prompt, /### old\.js\n\(deleted\)/);
      assert.match(prompt, /did not fit in 40 bytes of context, so they are not shown: README\.md, logo\.bin\n/);
      assert.doesNotMatch(prompt, /a \+ b \+ 1/, 'the baseline of a file the candidate changes is not repeated');
    } finally {
      await stub.close();
    }
  });

  it('answers a mission without a workspace with a value', async () => {
    const stub = await startOpenAIStub({ replies: ['{"files":{},"value":{"sum":4}}'] });
    try {
      const proposal = await modelProposer({ baseURL: stub.baseURL, model: 'stub-model', maxRetries: 0 }).propose(proposalRequest({}), {
        signal,
      });
      assert.deepEqual(proposal.value, { sum: 4 });
      assert.match(promptOf(stub.requests[0]), /This mission has no workspace/);
    } finally {
      await stub.close();
    }
  });

  it('turns a reply that is not a proposal into proposer.bad_output', async () => {
    const stub = await startOpenAIStub({ replies: ['Sure! Here is the fix: add = a + b', '{"files":{"src/add.js":3}}'] });
    try {
      const proposer = modelProposer({ baseURL: stub.baseURL, model: 'stub-model', maxRetries: 0 });
      const notJson = await rejection(proposer.propose(proposalRequest({ workspaceDir }), { signal }));
      assert.equal(notJson.code, 'proposer.bad_output');
      assert.equal(notJson.output, 'Sure! Here is the fix: add = a + b');
      const offSchema = await rejection(proposer.propose(proposalRequest({ workspaceDir }), { signal }));
      assert.equal(offSchema.code, 'proposer.bad_output');
    } finally {
      await stub.close();
    }
  });

  it('turns a failed model call into proposer.model_error', async () => {
    const stub = await startOpenAIStub({ replies: [{ status: 500, content: 'the model is overloaded' }] });
    try {
      const error = await rejection(
        modelProposer({ baseURL: stub.baseURL, model: 'stub-model', maxRetries: 0 }).propose(proposalRequest({ workspaceDir }), { signal }),
      );
      assert.equal(error.code, 'proposer.model_error');
      assert.match(error.message, /HTTP 500/);
      assert.match(error.message, /the model is overloaded/);
      assert.equal(stub.requests.length, 1, 'no retry with maxRetries: 0');
    } finally {
      await stub.close();
    }
  });

  it('turns a stopped run into proposer.aborted without waiting for the model', async () => {
    const stub = await startOpenAIStub({ replies: [{ content: '{"files":{}}', delayMs: 10_000 }] });
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const error = await rejection(
        modelProposer({ baseURL: stub.baseURL, model: 'stub-model', maxRetries: 0 }).propose(proposalRequest({ workspaceDir }), {
          signal: controller.signal,
        }),
      );
      assert.equal(error.code, 'proposer.aborted');
    } finally {
      await stub.close();
    }
  });

  it('takes an AI SDK model instead of an endpoint and is named after its id', async () => {
    const stub = await startOpenAIStub({ replies: ['{"files":{}}'] });
    try {
      const proposer = modelProposer({
        languageModel: openAICompatibleModel({ baseURL: stub.baseURL, model: 'other-model' }),
        maxRetries: 0,
      });
      assert.equal(proposer.name, 'model:other-model');
      assert.deepEqual((await proposer.propose(proposalRequest({ workspaceDir }), { signal })).files, {});
    } finally {
      await stub.close();
    }
  });

  it('in a run, shows the model the run snapshot, not what the live workspace became meanwhile', async () => {
    const dir = await workspaceWith({ 'src/add.js': 'export const add = (a, b) => a - b;\n', 'test.sh': 'grep -q "a + b" src/add.js\n' });
    const stub = await startOpenAIStub({
      replies: ['{"files":{"src/other.js":"x"}}', '{"files":{"src/add.js":"export const add = (a, b) => a + b;\\n"}}'],
    });
    try {
      const proposer = modelProposer({ baseURL: stub.baseURL, model: 'stub-model', maxRetries: 0 });
      let calls = 0;
      const spy: typeof proposer = {
        ...proposer,
        async propose(request, options) {
          calls += 1;
          // The user edits the live workspace after the run started.
          if (calls === 2) await writeFile(path.join(dir, 'src/add.js'), 'LIVE EDIT\n');
          return proposer.propose(request, options);
        },
      };
      const mission = defineMission({
        id: 'snap',
        goal: 'fix add',
        workspace: dir,
        scope: ['src/**'],
        budgets: { maxAttempts: 2 },
        stopPolicy: { guards: [] },
        checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'sh test.sh' }],
      });
      const result = await runMission({ mission, proposer: spy, ledger: new MemoryLedger() });
      assert.equal(result.outcome, 'complete');
      const second = promptOf(stub.requests[1]);
      assert.match(second, /a - b/);
      assert.doesNotMatch(second, /LIVE EDIT/);
    } finally {
      await stub.close();
    }
  });
});
