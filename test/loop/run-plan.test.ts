import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modelProposer } from '../../src/ai-sdk/model-proposer.js';
import { PROPOSAL_PROMPT_TEMPLATE } from '../../src/ai-sdk/proposal-prompt.js';
import { commandJudge } from '../../src/judge/command-judge.js';
import { missionHash, defineMission } from '../../src/mission/mission.js';
import { AGENT_PROMPT_TEMPLATE } from '../../src/proposers/agent-prompt.js';
import { agentProposer } from '../../src/proposers/agent-proposer.js';
import { commandProposer } from '../../src/proposers/command-proposer.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { PROPOSER_PROTOCOL, type Proposer } from '../../src/proposers/proposer.js';
import { replayProposer } from '../../src/proposers/replay-proposer.js';
import { planHash } from '../../src/state/signature.js';
import { proposerIdentity, runPlanHash, runPlanOf } from '../../src/run/run-plan.js';

const mission = defineMission({ id: 'm', goal: 'g' });

describe('run plan', () => {
  it('names each built-in proposer by kind, what it runs and its prompt template', () => {
    const model = modelProposer({ baseURL: 'http://127.0.0.1:9/v1', model: 'gpt-x' });
    assert.deepEqual(model.identity, { kind: 'model', name: 'gpt-x', template: PROPOSAL_PROMPT_TEMPLATE });
    assert.deepEqual(agentProposer({ command: ['claude', '-p'] }).identity, {
      kind: 'agent',
      name: 'claude -p',
      template: AGENT_PROMPT_TEMPLATE,
    });
    assert.deepEqual(commandProposer({ command: 'node fix.js', cwd: '.' }).identity, {
      kind: 'command',
      name: 'node fix.js',
      template: PROPOSER_PROTOCOL,
    });
    assert.deepEqual(replayProposer([], { name: 'replay:a.json' }).identity, { kind: 'replay', name: 'replay:a.json' });
    assert.deepEqual(functionProposer(() => ({})).identity, { kind: 'function', name: 'function' });
    const custom: Proposer = { name: 'mine', capabilities: { reportsTokens: false, reportsCost: false }, propose: async () => ({}) };
    assert.deepEqual(proposerIdentity(custom), { kind: 'custom', name: 'mine' });
  });

  it('hashes the mission and the proposer identity: a stronger model or a changed prompt is a new plan', () => {
    const base = runPlanOf(mission, modelProposer({ baseURL: 'http://127.0.0.1:9/v1', model: 'small' }));
    assert.equal(base.hash, runPlanHash({ missionHash: missionHash(mission), proposer: base.proposer }));
    assert.match(base.hash, /^[0-9a-f]{64}$/);
    const hashes = new Set([
      base.hash,
      runPlanOf(mission, modelProposer({ baseURL: 'http://127.0.0.1:9/v1', model: 'large' })).hash,
      runPlanHash({ missionHash: missionHash(mission), proposer: { ...base.proposer, template: 'redline.proposal-prompt/2' } }),
      runPlanOf(defineMission({ id: 'm', goal: 'another goal' }), modelProposer({ baseURL: 'http://127.0.0.1:9/v1', model: 'small' })).hash,
      runPlanOf(mission, agentProposer({ command: 'small' })).hash,
    ]);
    assert.equal(hashes.size, 5);
    // The same plan again hashes the same, and is not the check plan's hash of state signatures.
    assert.equal(runPlanOf(mission, modelProposer({ baseURL: 'http://127.0.0.1:9/v1', model: 'small' })).hash, base.hash);
    assert.notEqual(base.hash, planHash([]));
  });

  it('knows a command by its identity: secrets redacted, assignments dropped, loopback ports and temporary paths as placeholders', () => {
    const agent = (port: number, home: string) =>
      agentProposer({ command: `CODEX_HOME=${home} OPENAI_API_KEY=sk-secret codex exec --port ${port} --api-key sk-2` });
    const first = agent(41237, '/tmp/tmp.AbCdEf1234');
    assert.deepEqual(first.identity, { kind: 'agent', name: 'codex exec --port <port> --api-key ***', template: AGENT_PROMPT_TEMPLATE });
    assert.equal(first.name, 'agent:CODEX_HOME=/tmp/tmp.AbCdEf1234 OPENAI_API_KEY=*** codex exec --port 41237 --api-key ***');
    assert.equal(runPlanOf(mission, agent(5555, '/tmp/tmp.ZyXwVu9876')).hash, runPlanOf(mission, first).hash);
    assert.equal(commandProposer({ command: ['node', 'fix.js', '--token', 't'], cwd: '.' }).name, 'node fix.js --token ***');
    // The judge's name is recorded (run.started) and traced as well.
    assert.equal(commandJudge({ command: 'JUDGE_TOKEN=t1 node judge.js', cwd: '.' }).name, 'command:JUDGE_TOKEN=*** node judge.js');
  });

  it('puts a plan label in place of what the proposer runs: one plan under one label, another under another', () => {
    const labelled = runPlanOf(mission, agentProposer({ command: 'codex exec --profile a' }), { label: 'nightly codex' });
    assert.deepEqual(labelled.proposer, { kind: 'agent', name: 'nightly codex', template: AGENT_PROMPT_TEMPLATE, label: true });
    assert.equal(runPlanOf(mission, agentProposer({ command: 'codex exec --profile b' }), { label: 'nightly codex' }).hash, labelled.hash);
    assert.notEqual(
      runPlanOf(mission, agentProposer({ command: 'codex exec --profile a' }), { label: 'weekly codex' }).hash,
      labelled.hash,
    );
    assert.notEqual(runPlanOf(mission, agentProposer({ command: 'nightly codex' })).hash, labelled.hash, 'a label is not a command');
    for (const label of ['', '  ', 7])
      assert.throws(
        () =>
          runPlanOf(
            mission,
            functionProposer(() => ({})),
            { label: label as string },
          ),
        /^TypeError: Expected the plan label to be a non-empty string/,
      );
  });
});
