import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { McpSession } from '../../src/mcp/mcp-session.js';
import { serveMcp } from '../../src/mcp/mcp-server.js';
import { defineMission, type Mission } from '../../src/mission/mission.js';
import { tempWorkspace } from '../helpers/workspace.js';

// The session in-process: what a submit proposes of the working copy, what the loop refuses before a run,
// and the progress a long call sends. The spawned server is tested in mcp-server.test.ts.

const TEST = [
  "import assert from 'node:assert/strict';",
  "import { test } from 'node:test';",
  "import { add } from '../src/add.js';",
  "test('adds', async () => { await new Promise((done) => setTimeout(done, Number(process.env.SLOW ?? 0))); assert.equal(add(2, 3), 5); });",
  '',
].join('\n');

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function fixture(
  budgets: Record<string, unknown> = { maxAttempts: 5 },
  command = 'node --test --test-reporter=tap test/add.test.js',
): Promise<Mission> {
  const dir = await tempWorkspace({
    'package.json': '{ "type": "module" }\n',
    'src/add.js': 'export const add = (a, b) => a - b;\n',
    'test/add.test.js': TEST,
  });
  dirs.push(dir);
  return defineMission(
    {
      id: 'adder',
      goal: 'Make add return the sum.',
      workspace: dir,
      scope: ['src/**'],
      budgets,
      checks: [{ name: 'tests', kind: 'test-runner', command, format: 'tap', timeout: '30s' }],
    },
    { baseDir: dir },
  );
}

const scratchDir = await tempWorkspace({});
dirs.push(scratchDir);

describe('McpSession', () => {
  it('proposes the working copy against the baseline: a file created and then deleted leaves the candidate', async () => {
    const mission = await fixture();
    const ledger = new MemoryLedger();
    const session = await McpSession.open({ mission, ledger, scratchDir, agent: () => 'tester' });
    try {
      const workspace = mission.workspaceDir as string;
      await writeFile(path.join(workspace, 'src/extra.js'), 'export {};\n');
      const first = await session.submit();
      assert.equal(first.decision, 'continue');
      await rm(path.join(workspace, 'src/extra.js'));
      await writeFile(path.join(workspace, 'src/add.js'), 'export const add = (a, b) => a + b;\n');
      const second = await session.submit({ runId: first.runId });
      assert.deepEqual([second.decision, second.decision === 'stop' ? second.outcome : undefined], ['stop', 'complete']);
      const attempts = (await ledger.records(first.runId)).flatMap((record) => (record.type === 'attempt' ? [record.data] : []));
      assert.deepEqual(
        attempts.map((attempt) => attempt.candidate?.footprint),
        [['src/extra.js'], ['src/add.js']],
      );
      const started = (await ledger.records(first.runId))[0];
      assert.equal(started?.type === 'run.started' ? started.data.proposer : undefined, 'mcp:tester');
    } finally {
      await session.close();
    }
  });

  it('refuses, before any record, a mission whose token budget an agent cannot be measured against', async () => {
    const ledger = new MemoryLedger();
    const session = await McpSession.open({ mission: await fixture({ maxAttempts: 3, maxTokens: 1000 }), ledger, scratchDir });
    try {
      await assert.rejects(session.submit(), /a token budget cannot be measured: proposer mcp:agent does not report token usage/);
      assert.deepEqual(await ledger.runs(), []);
      // The status says why, and so does every later submit: nothing was recorded, so there is no run to name.
      await assert.rejects(session.status(), /a token budget cannot be measured/);
      await assert.rejects(session.submit(), /a token budget cannot be measured/);
      assert.deepEqual(await ledger.runs(), []);
    } finally {
      await session.close();
    }
  });

  it('stops the run when the frozen baseline was written to, so a test weakened there cannot pass a run', async () => {
    const scratch = await tempWorkspace({});
    dirs.push(scratch);
    const ledger = new MemoryLedger();
    const session = await McpSession.open({ mission: await fixture(), ledger, scratchDir: scratch });
    try {
      const [frozen] = (await readdir(path.join(scratch, 'redline-runs'))).filter((name) => name.startsWith('mcp-'));
      const weakened = TEST.replace('assert.equal(add(2, 3), 5)', 'assert.ok(true)');
      await writeFile(path.join(scratch, 'redline-runs', frozen as string, 'agent/test/add.test.js'), weakened);
      await assert.rejects(session.submit(), { name: 'BaselineChangedError' });
      const runs = await ledger.runs();
      assert.equal(runs.length, 1);
      const seal = (await ledger.records(runs[0]?.runId as string)).at(-1);
      assert.equal(seal?.type === 'run.sealed' ? seal.data.stopReason : seal?.type, 'aborted');
      // No second run on the changed copy.
      await assert.rejects(session.submit(), { name: 'BaselineChangedError' });
      assert.equal((await ledger.runs()).length, 1);
    } finally {
      await session.close();
    }
  });

  it('does not verify a run whose check copy a client rewrites every millisecond during redline_submit', async () => {
    const scratch = await tempWorkspace({});
    dirs.push(scratch);
    const ledger = new MemoryLedger();
    const mission = await fixture({ maxAttempts: 1 });
    const session = await McpSession.open({ mission, ledger, scratchDir: scratch });
    // The client's own process, outside redline's control: it finds every run's check copy under the scratch
    // directory and, every millisecond, rewrites the test there into one that passes (never creating a file).
    const attacker = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
        const root = require('node:path').join(process.env.SCRATCH, 'redline-runs');
        const passing = "import { test } from 'node:test';\\ntest('adds', () => {});\\n";
        setInterval(() => {
          for (const run of fs.existsSync(root) ? fs.readdirSync(root) : []) {
            try {
              const fd = fs.openSync(root + '/' + run + '/check/test/add.test.js', 'r+');
              fs.ftruncateSync(fd);
              fs.writeSync(fd, passing, 0);
              fs.closeSync(fd);
            } catch {}
          }
        }, 1);`,
      ],
      { env: { ...process.env, SCRATCH: scratch }, stdio: 'ignore' },
    );
    const attackerGone = once(attacker, 'exit');
    try {
      await writeFile(path.join(mission.workspaceDir as string, 'src/add.js'), 'export const add = (a, b) => a * b;\n');
      const answer = await session.submit();
      assert.equal(answer.decision, 'stop');
      assert.deepEqual(answer.decision === 'stop' ? [answer.outcome, answer.verification] : [], ['failed_with_evidence', 'unverified']);
      const voided = answer.findings.find((item) => item.reasonCodes.includes('check.inputs_changed'));
      assert.match(voided?.message ?? '', /test\/add\.test\.js/);
      const records = await ledger.records(answer.runId);
      const attempt = records.find((record) => record.type === 'attempt');
      const tests = attempt?.type === 'attempt' ? (attempt.data.findings ?? []).filter((item) => item.check === 'tests') : [];
      assert.deepEqual(
        tests.map((item) => [item.status, item.reasonCodes.join()]),
        [['error', 'check.inputs_changed']],
      );
    } finally {
      attacker.kill('SIGKILL');
      await attackerGone;
      await session.close();
    }
  });

  it('keeps a long call alive with progress notifications when the client asks for progress', async () => {
    const mission = await fixture({ maxAttempts: 2 }, 'SLOW=600 node --test --test-reporter=tap test/add.test.js');
    const [toServer, fromServer] = [new PassThrough(), new PassThrough()];
    const served = serveMcp({
      mission,
      ledger: new MemoryLedger(),
      scratchDir,
      input: toServer,
      output: fromServer,
      progressIntervalMs: 100,
    });
    const client = new Client({ name: 'tester', version: '1' });
    // The SDK's stdio transport reads one stream and writes another: here, the client's end of the pipes.
    await client.connect(new StdioServerTransport(fromServer, toServer));
    const progress: number[] = [];
    const result = await client.callTool({ name: 'redline_checks' }, undefined, {
      timeout: 400,
      resetTimeoutOnProgress: true,
      onprogress: ({ progress: step }) => progress.push(step),
    });
    assert.equal((result.structuredContent as { passed: boolean }).passed, false);
    assert.ok(progress.length >= 2, `progress notifications: ${progress.join(', ')}`);
    toServer.end();
    await served;
  });
});
