import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { mathMission } from '../helpers/math-mission.js';
import { redline, ROOT } from './redline.js';

const SED_AGENT = path.join(ROOT, 'test/fixtures/agents/sed-agent.sh');
/** Keys written inline, in three spellings: an assignment, an option, an assignment in a check's command. */
const AGENT_KEY = 'sk-live-4f9c2a7e1b3d8f60';
const FLAG_KEY = 'sk-flag-0e1d2c3b4a596877';
const CHECK_KEY = 'ghp_check5a6b7c8d9e0f1a2b';

describe('secrets stay out of the record', () => {
  it('an inline key in --agent and in a check command runs as given, and reaches neither the ledger file, nor ledger show, nor ledger export', async () => {
    const { file } = await mathMission({
      budgets: { maxAttempts: 3 },
      stopPolicy: { guards: [] },
      checks: [
        { name: 'tests', kind: 'test-runner', format: 'tap', command: `GH_TOKEN=${CHECK_KEY} node --test-reporter=tap test/math.test.js` },
      ],
    });
    const dir = path.dirname(file);
    const seen = path.join(dir, 'seen-key');
    const agent = `OPENAI_API_KEY=${AGENT_KEY} sh -c 'printf %s "$OPENAI_API_KEY" > ${seen}' && ${SED_AGENT} --api-key ${FLAG_KEY}`;
    const ledger = path.join(dir, 'ledger.db');

    const run = await redline(['run', file, '--agent', agent, '--ledger', ledger, '--json']);
    assert.equal(run.code, 0, run.stderr);
    const { runId, outcome, verification } = JSON.parse(run.stdout) as { runId: string; outcome: string; verification: string };
    assert.deepEqual([outcome, verification], ['complete', 'verified']);
    assert.equal(await readFile(seen, 'utf8'), AGENT_KEY, 'the command that ran is the one given');

    const keys = [AGENT_KEY, FLAG_KEY, CHECK_KEY];
    // The ledger's bytes, its write-ahead log included when there is one: the records are there, redacted.
    const files = (await readdir(dir)).filter((name) => name.startsWith('ledger.db'));
    const bytes = Buffer.concat(await Promise.all(files.map((name) => readFile(path.join(dir, name)))));
    assert.ok(bytes.includes('OPENAI_API_KEY=***'), `the run's records are in ${files.join(', ')}`);
    for (const key of keys) assert.equal(bytes.includes(key), false, `${key} is in the ledger's files`);
    const exported = await redline(['ledger', 'export', '--format', 'jsonl', '--ledger', ledger]);
    assert.equal(exported.code, 0, exported.stderr);
    const shown = await redline(['ledger', 'show', runId, '--ledger', ledger]);
    for (const text of [exported.stdout, shown.stdout, run.stdout + run.stderr])
      for (const key of keys) assert.equal(text.includes(key), false, `${key} is printed`);

    // A run row, then its records as stored: the first is run.started.
    const record = JSON.parse(exported.stdout.split('\n')[1] as string) as { type: string; body: string };
    assert.equal(record.type, 'run.started');
    const started = JSON.parse(record.body) as {
      data: { proposer: string; plan: { proposer: { name: string } }; mission: { checks: { command: string }[] } };
    };
    assert.equal(
      started.data.proposer,
      `agent:OPENAI_API_KEY=*** sh -c 'printf %s "$OPENAI_API_KEY" > ${seen}' && ${SED_AGENT} --api-key ***`,
    );
    assert.match(
      started.data.plan.proposer.name,
      /^sh -c 'printf %s "\$OPENAI_API_KEY" > .*seen-key' && .*sed-agent\.sh --api-key \*\*\*$/,
    );
    assert.equal(started.data.mission.checks[0]?.command, 'GH_TOKEN=*** node --test-reporter=tap test/math.test.js');
    const verify = await redline(['ledger', 'verify', '--ledger', ledger]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  });
});
