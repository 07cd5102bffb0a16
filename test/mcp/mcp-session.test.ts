import { writeFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { RunRow } from '../../src/ledger/ledger.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { McpSession } from '../../src/mcp/mcp-session.js';
import { serveMcp } from '../../src/mcp/mcp-server.js';
import { StdioFront } from '../../src/mcp/stdio-front.js';
import { defineMission, type Mission } from '../../src/mission/mission.js';
import { tempWorkspace } from '../helpers/workspace.js';

// The session in-process: what a submit proposes of the working copy, what the loop refuses before a run,
// when the baseline is checked, what status says while a submit runs, how a session that ends is sealed, and
// the progress a long call sends. The spawned server is tested in mcp-server.e2e.ts.

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
  command = 'node --test-reporter=tap test/add.test.js',
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

/** A scratch directory of the test's own (its `redline-runs` are the test's alone), removed after the suite. */
async function ownScratch(): Promise<string> {
  const dir = await tempWorkspace({});
  dirs.push(dir);
  return dir;
}

const scratchDir = await ownScratch();

/** A ledger whose plan look-up, the last step before a run snapshots its workspace, waits for `open`. */
class GatedLedger extends MemoryLedger {
  #open: () => void = () => undefined;
  readonly #gate = new Promise<void>((resolve) => (this.#open = resolve));

  open(): void {
    this.#open();
  }

  override async latestSealed(query: { readonly missionId: string; readonly planHash: string }): Promise<RunRow | undefined> {
    await this.#gate;
    return super.latestSealed(query);
  }
}

const types = async (ledger: MemoryLedger, runId: string) => (await ledger.records(runId)).map((record) => record.type);

/** How the run was sealed: stop reason, attempts, detail. */
async function sealOf(ledger: MemoryLedger, runId: string): Promise<unknown> {
  const seal = (await ledger.records(runId)).at(-1);
  return seal?.type === 'run.sealed' ? [seal.data.stopReason, seal.data.attempts, seal.data.detail] : seal?.type;
}

/** Polls until `ready` holds (for at most about a minute). */
async function until(ready: () => Promise<boolean> | boolean): Promise<void> {
  for (let tries = 0; !(await ready()); tries += 1) {
    if (tries === 3000) throw new Error(`still not ready: ${ready.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('McpSession', () => {
  it('proposes the working copy against the baseline: a file created and then deleted leaves the candidate', async () => {
    const mission = await fixture();
    const ledger = new MemoryLedger();
    const session = await McpSession.open({ mission, ledger, scratchDir, agent: 'tester' });
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

  it('refuses a working copy holding a file name that is not UTF-8, with a finding', async () => {
    const mission = await fixture();
    const session = await McpSession.open({ mission, ledger: new MemoryLedger(), scratchDir });
    try {
      const src = Buffer.from(path.join(mission.workspaceDir as string, 'src/'));
      writeFileSync(Buffer.concat([src, Buffer.from([0x62, 0xff, 0x2e, 0x6a, 0x73])]), 'export {};\n');
      const checked = await session.checks();
      assert.deepEqual(checked.findings[0]?.reasonCodes, ['proposer.bad_output']);
      assert.match(
        checked.findings[0]?.message ?? '',
        /^the working copy cannot be a candidate: "src\/b\uFFFD\.js" is not a UTF-8 file name/,
      );
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
    const scratch = await ownScratch();
    const ledger = new GatedLedger();
    const session = await McpSession.open({ mission: await fixture(), ledger, scratchDir: scratch });
    try {
      // Written before the run, which starts with the session, reads the frozen copy into its snapshot.
      const [frozen] = (await readdir(path.join(scratch, 'redline-runs'))).filter((name) => name.startsWith('mcp-'));
      const weakened = TEST.replace('assert.equal(add(2, 3), 5)', 'assert.ok(true)');
      await writeFile(path.join(scratch, 'redline-runs', frozen as string, 'agent/test/add.test.js'), weakened);
      ledger.open();
      await assert.rejects(session.submit(), { name: 'BaselineChangedError' });
      const runs = await ledger.runs();
      assert.equal(runs.length, 1);
      assert.deepEqual(await sealOf(ledger, runs[0]?.runId as string), [
        'aborted',
        0,
        'the run was stopped by its caller before the first attempt',
      ]);
      // No second run on the changed copy.
      await assert.rejects(session.submit(), { name: 'BaselineChangedError' });
      assert.equal((await ledger.runs()).length, 1);
    } finally {
      await session.close();
    }
  });

  it("checks the baseline when the session starts, so the first submit runs the checks once; the run records the mission's own workspace", async () => {
    const counter = path.join(scratchDir, `checked-${process.pid}`);
    const count = `printf x >> '${counter}'`;
    const mission = await fixture({ maxAttempts: 3 }, `${count} && node --test-reporter=tap test/add.test.js`);
    const ledger = new MemoryLedger();
    const session = await McpSession.open({ mission, ledger, scratchDir });
    try {
      await until(async () => (await session.status()).running.length === 0);
      const [run] = await ledger.runs();
      assert.deepEqual(await types(ledger, run?.runId as string), ['run.started', 'baseline', 'decision']);
      assert.equal(await readFile(counter, 'utf8'), 'x');
      await writeFile(path.join(mission.workspaceDir as string, 'src/add.js'), 'export const add = (a, b) => a + b;\n');
      const answer = await session.submit();
      assert.deepEqual([answer.decision, answer.decision === 'stop' ? answer.outcome : undefined], ['stop', 'complete']);
      assert.equal(await readFile(counter, 'utf8'), 'xx');
      const started = (await ledger.records(answer.runId))[0];
      assert.equal(started?.type === 'run.started' ? started.data.mission.workspaceDir : undefined, mission.workspaceDir);
    } finally {
      await session.close();
    }
  });

  it('answers status at once while a submit runs, with the checks running and for how long', async () => {
    let now = 0;
    const mission = await fixture({ maxAttempts: 3 }, 'SLOW=400 node --test-reporter=tap test/add.test.js');
    const session = await McpSession.open({ mission, ledger: new MemoryLedger(), scratchDir, _internal: { now: () => now } });
    try {
      now = 1500;
      const starting = await session.status();
      assert.deepEqual(starting.running, [{ checks: 'baseline', elapsedMs: 1500 }]);
      await writeFile(path.join(mission.workspaceDir as string, 'src/add.js'), 'export const add = (a, b) => a * b;\n');
      let settled = false;
      const submitted = session.submit().finally(() => (settled = true));
      // Each status answers while the submit is still running: first behind the baseline, then its own checks.
      await until(async () => (await session.status()).running.some((item) => item.checks === 'redline_submit'));
      now = 4000;
      const during = await session.status();
      assert.equal(settled, false);
      assert.deepEqual([during.state, during.state === 'open' ? during.attempts : undefined], ['open', 0]);
      assert.deepEqual(during.running, [{ checks: 'redline_submit', elapsedMs: 2500 }]);
      const answer = await submitted;
      assert.equal(answer.decision, 'continue');
      assert.deepEqual((await session.status()).running, []);
    } finally {
      await session.close();
    }
  });

  it('seals a session that ends after one submit with that one attempt, and removes its baseline directory', async () => {
    const scratch = await ownScratch();
    const ledger = new MemoryLedger();
    const session = await McpSession.open({ mission: await fixture(), ledger, scratchDir: scratch });
    const answer = await session.submit();
    assert.equal(answer.decision, 'continue');
    await session.close();
    assert.deepEqual(await sealOf(ledger, answer.runId), ['aborted', 1, 'the run was stopped by its caller after attempt 1']);
    assert.deepEqual(
      (await readdir(path.join(scratch, 'redline-runs'))).filter((name) => name.startsWith('mcp-')),
      [],
    );
  });

  it('does not verify a run whose check copy a client rewrites every millisecond during redline_submit', async () => {
    const scratch = await ownScratch();
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
    const mission = await fixture({ maxAttempts: 2 }, 'SLOW=600 node --test-reporter=tap test/add.test.js');
    const [toServer, fromServer] = [new PassThrough(), new PassThrough()];
    const served = serveMcp({
      front: new StdioFront({ input: toServer, output: fromServer }),
      mission,
      ledger: new MemoryLedger(),
      scratchDir,
      progressIntervalMs: 100,
    });
    const client = new Client({ name: 'tester', version: '1' });
    // The SDK's stdio transport reads one stream and writes another: here, the client's end of the pipes.
    await client.connect(new StdioServerTransport(fromServer, toServer));
    // Once the session is open (a first call waits for it), a long call is kept alive by its progress alone.
    await client.callTool({ name: 'redline_status' });
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
