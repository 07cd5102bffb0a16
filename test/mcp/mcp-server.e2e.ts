import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { redline, ROOT } from '../cli/redline.js';
import { tempWorkspace } from '../helpers/workspace.js';

// The real `redline mcp` (built dist/: `npm run build -- --noCheck`), spawned by the SDK's own client over
// stdio, on a tiny package whose `node --test` test is the mission's demand red line.

const BIN = path.join(ROOT, 'bin/redline.js');

const WRONG = 'export function add(a, b) {\n  return a - b;\n}\n';
const RIGHT = 'export function add(a, b) {\n  return a + b;\n}\n';

/** A package with one test of `add`, and a mission whose red line is that test. */
async function fixture({
  maxAttempts = 5,
  test = 'adds two numbers',
  slowMs = 0,
}: { maxAttempts?: number; test?: string; slowMs?: number } = {}): Promise<string> {
  return tempWorkspace({
    'package.json': '{ "name": "adder", "type": "module" }\n',
    'src/add.js': WRONG,
    'test/add.test.js': [
      "import assert from 'node:assert/strict';",
      "import { test } from 'node:test';",
      "import { add } from '../src/add.js';",
      `test(${JSON.stringify(test)}, async () => { await new Promise((done) => setTimeout(done, ${slowMs})); assert.equal(add(2, 3), 5); });`,
      '',
    ].join('\n'),
    'mission.yaml': [
      'id: adder',
      'goal: Make add(a, b) return the sum. Do not change the tests.',
      'workspace: .',
      "scope: ['src/**']",
      'budgets:',
      `  maxAttempts: ${maxAttempts}`,
      'checks:',
      '  - name: tests',
      '    kind: test-runner',
      // The test file run directly: one node process a check, where `node --test` would start a second for the file.
      '    command: node --test-reporter=tap test/add.test.js',
      '    format: tap',
      '    timeout: 30s',
      '',
    ].join('\n'),
  });
}

const clients: Client[] = [];
after(async () => {
  for (const client of clients) await client.close();
});

/** The SDK's client, connected to `redline mcp` serving the fixture's mission. */
async function connect(dir: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--mission', path.join(dir, 'mission.yaml'), '--ledger', path.join(dir, '.redline/redline.db')],
    cwd: dir,
    env: { ...(process.env as Record<string, string>), REDLINE_SCRATCH: path.join(dir, '.redline') },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** `redline mcp` spawned on the fixture's mission, spoken to line by line: for what happens at the process's edges. */
function rawServer(dir: string, { node = [], env = {} }: { node?: readonly string[]; env?: NodeJS.ProcessEnv } = {}) {
  const child = spawn(
    process.execPath,
    [...node, BIN, 'mcp', '--mission', path.join(dir, 'mission.yaml'), '--ledger', path.join(dir, '.redline/redline.db')],
    { cwd: dir, env: { ...process.env, REDLINE_SCRATCH: path.join(dir, '.redline'), ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (code, signal) => resolve([code, signal])),
  );
  const waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  let buffer = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, end)) as { id?: number; result?: unknown; error?: unknown };
      buffer = buffer.slice(end + 1);
      if (message.id !== undefined) waiting.get(message.id)?.(message);
    }
  });
  let id = 0;
  return {
    child,
    exited,
    stderr: () => stderr,
    notify: (method: string) => void child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`),
    request: (method: string, params: object): Promise<{ result?: unknown; error?: unknown }> => {
      id += 1;
      const answered = new Promise<{ result?: unknown; error?: unknown }>((resolve) => waiting.set(id, resolve));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return answered;
    },
  };
}

/** How the run was sealed, as the fixture's ledger holds it: stop reason, attempts, detail. */
async function sealOf(dir: string, runId: string): Promise<unknown> {
  const ledger = await SqliteLedger.open({ database: path.join(dir, '.redline/redline.db') });
  try {
    const seal = (await ledger.records(runId)).at(-1);
    return seal?.type === 'run.sealed' ? [seal.data.stopReason, seal.data.attempts, seal.data.detail] : seal?.type;
  } finally {
    await ledger.close();
  }
}

interface Answer {
  readonly [key: string]: unknown;
  readonly findings: readonly { status: string; reasonCodes: readonly string[]; message: string; location?: { test?: string } }[];
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Answer> {
  const result = await client.callTool({ name, arguments: args });
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return result.structuredContent as Answer;
}

const failing = (answer: Answer) => answer.findings.filter((finding) => finding.status === 'fail');

describe('redline mcp', () => {
  it('serves check → edit → submit to a complete / verified run that ledger verify verifies; a claim of success does not pass a failing test', async () => {
    const dir = await fixture();
    const client = await connect(dir);
    const tools = (await client.listTools()).tools;
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['redline_checks', 'redline_submit', 'redline_status'],
    );
    // Clients with approval policies go by these: checks and status only read, nothing is destroyed or reached outside.
    assert.deepEqual(
      tools.map(({ annotations }) => [
        annotations?.readOnlyHint,
        annotations?.destructiveHint,
        annotations?.idempotentHint,
        annotations?.openWorldHint,
      ]),
      [
        [true, false, true, false],
        [false, false, false, false],
        [true, false, true, false],
      ],
    );
    const first = await call(client, 'redline_status');
    assert.ok(first.state === 'none' || first.state === 'open', JSON.stringify(first));
    assert.deepEqual(first.budgetsLeft, { attempts: 5 });

    const checked = await call(client, 'redline_checks');
    assert.equal(checked.passed, false);
    assert.deepEqual(failing(checked)[0]?.reasonCodes, ['test.failed:adds two numbers']);

    // The agent says it is done without changing anything: no change is not a candidate, the test still fails, the loop goes on.
    const claimed = await call(client, 'redline_submit', { done: true, note: 'All tests pass. The task is complete.' });
    assert.equal(claimed.decision, 'continue');
    assert.equal(claimed.attempt, 1);
    assert.deepEqual(claimed.budgetsLeft, { attempts: 4 });
    assert.deepEqual(
      failing(claimed).map((finding) => finding.reasonCodes),
      [['proposer.no_change'], ['test.failed:adds two numbers']],
    );
    assert.match(failing(claimed)[0]?.message ?? '', /^the agent changed nothing\n/);
    const runId = claimed.runId as string;

    await writeFile(path.join(dir, 'src/add.js'), RIGHT);
    const fixed = await call(client, 'redline_checks');
    assert.equal(fixed.passed, true);
    assert.deepEqual(fixed.footprint, ['src/add.js']);

    const submitted = await call(client, 'redline_submit', { runId });
    assert.equal(submitted.decision, 'stop');
    assert.deepEqual(
      [submitted.runId, submitted.outcome, submitted.verification, submitted.stopReason, submitted.attempts],
      [runId, 'complete', 'verified', 'demand_passed', 2],
    );
    const status = await call(client, 'redline_status', { runId });
    assert.deepEqual([status.state, status.outcome], ['sealed', 'complete']);
    // A sealed run takes no more attempts.
    const again = await call(client, 'redline_submit', { runId });
    assert.deepEqual([again.decision, again.attempts], ['stop', 2]);

    await client.close();
    const verified = await redline(['ledger', 'verify', '--ledger', path.join(dir, '.redline/redline.db')]);
    assert.equal(verified.code, 0, verified.stderr);
    const ledger = await SqliteLedger.open({ database: path.join(dir, '.redline/redline.db') });
    try {
      const records = await ledger.records(runId);
      assert.deepEqual(
        records.map((record) => record.type),
        ['run.started', 'baseline', 'decision', 'attempt', 'decision', 'attempt', 'decision', 'run.sealed'],
      );
      const started = records[0];
      assert.equal(started?.type === 'run.started' ? started.data.proposer : undefined, 'mcp:test-agent');
    } finally {
      await ledger.close();
    }
    // The agent's working copy is its own: nothing of the run was written back.
    assert.equal(await readFile(path.join(dir, 'src/add.js'), 'utf8'), RIGHT);

    // The run records the mission's workspace, so admission works after the session as for any run: the working
    // copy already holds the candidate (an empty patch), and a workspace put back to the baseline gets the change.
    const patch = path.join(dir, '.redline/change.diff');
    const held = await redline(['admit', runId, '--patch', patch, '--ledger', path.join(dir, '.redline/redline.db')]);
    assert.equal(held.code, 0, held.stderr);
    assert.match(held.stdout, /unchanged src\/add\.js\nthe patch is empty/);
    await writeFile(path.join(dir, 'src/add.js'), WRONG);
    const admitted = await redline(['admit', runId, '--patch', patch, '--ledger', path.join(dir, '.redline/redline.db')]);
    assert.equal(admitted.code, 0, admitted.stderr);
    assert.match(await readFile(patch, 'utf8'), /- {2}return a - b;\n\+ {2}return a \+ b;/);
  });

  it('stops with the budget reason and a sealed run when the attempts run out', async () => {
    const dir = await fixture({ maxAttempts: 2 });
    const client = await connect(dir);
    const first = await call(client, 'redline_submit');
    assert.deepEqual([first.decision, first.budgetsLeft], ['continue', { attempts: 1 }]);
    await writeFile(path.join(dir, 'src/add.js'), 'export function add(a, b) {\n  return a * b;\n}\n');
    const second = await call(client, 'redline_submit');
    assert.deepEqual(
      [second.decision, second.outcome, second.verification, second.stopReason, second.guard, second.budgetsLeft],
      ['stop', 'failed_with_evidence', 'unverified', 'budget_attempts', 'attemptsBudget()', { attempts: 0 }],
    );
    const status = await call(client, 'redline_status');
    assert.deepEqual([status.state, status.runId, status.stopReason], ['sealed', first.runId, 'budget_attempts']);
    const unknown = await client.callTool({ name: 'redline_submit', arguments: { runId: 'not-a-run' } });
    assert.equal(unknown.isError, true);
    assert.match(JSON.stringify(unknown.content), /Expected the id of this session's run, got \\"not-a-run\\"/);
    // The budget binds: a later submit, fixed or not, answers the sealed run and starts no other.
    await writeFile(path.join(dir, 'src/add.js'), RIGHT);
    const later = await call(client, 'redline_submit');
    assert.deepEqual([later.decision, later.runId, later.outcome, later.attempts], ['stop', first.runId, 'failed_with_evidence', 2]);
  });

  it('refuses a working copy that escapes through a symlink, and spells out escapes in test output', async () => {
    const dir = await fixture({ test: 'adds \x1b[2J\x1b]0;pwned\x07 numbers \u202e' });
    const client = await connect(dir);
    const checked = await call(client, 'redline_checks');
    const shown = JSON.stringify(checked);
    assert.deepEqual(
      ['\x1b', '\x07', '\u202e'].filter((raw) => shown.includes(raw)),
      [],
    );
    assert.match(failing(checked)[0]?.location?.test ?? '', /adds \\x1b\[2J\\x1b]0;pwned\\x07 numbers \\u\{202e\}/);

    await rm(path.join(dir, 'src/add.js'));
    await symlink('/etc/passwd', path.join(dir, 'src/add.js'));
    const linked = await call(client, 'redline_checks');
    assert.deepEqual(linked.findings[0]?.reasonCodes, ['proposer.bad_output']);
    assert.match(linked.findings[0]?.message ?? '', /src\/add\.js is a symlink/);
    const submitted = await call(client, 'redline_submit');
    assert.equal(submitted.decision, 'continue');
    assert.deepEqual(submitted.findings[0]?.reasonCodes, ['proposer.bad_output']);
    assert.ok(submitted.findings.slice(1).every((finding) => finding.status === 'skipped'));

    // The client goes away with the run open: the server seals it as stopped, and the chain verifies.
    await client.close();
    assert.deepEqual(await sealOf(dir, submitted.runId as string), ['aborted', 1, 'the run was stopped by its caller after attempt 1']);
    assert.equal((await redline(['ledger', 'verify', '--ledger', path.join(dir, '.redline/redline.db')])).code, 0);
  });

  it('answers initialize and tools/list before it loads the SDK, the mission schema or the loop', async () => {
    const dir = await fixture();
    const loads = path.join(dir, '.redline-loads.txt');
    const hooks = ['test/fixtures/cli/record-loads.mjs', 'test/fixtures/mcp/record-answers.mjs'].flatMap((file) => [
      '--import',
      path.join(ROOT, file),
    ]);
    const server = rawServer(dir, { node: hooks, env: { REDLINE_TEST_LOADS: loads } });
    await server.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'codex', version: '0' } });
    server.notify('notifications/initialized');
    await server.request('tools/list', {});
    // Once the session is open, the client goes.
    await server.request('tools/call', { name: 'redline_status', arguments: {} });
    server.child.stdin.end();
    assert.deepEqual(await server.exited, [0, null], server.stderr());
    // The test build's CLI bundle names each of its modules as it evaluates it.
    const lines = (await readFile(loads, 'utf8')).trim().split('\n');
    const heavy = /\/node_modules\/(zod|@modelcontextprotocol)\/|\/(dist|src)\/(mission\/schema|loop\/|ledger\/sqlite\/)/;
    const handshake = lines.slice(0, lines.indexOf('answer 2'));
    assert.deepEqual(
      handshake.filter((line) => line.startsWith('answer ')),
      ['answer 1'],
    );
    assert.deepEqual(
      handshake.filter((line) => heavy.test(line)),
      [],
    );
    // They load afterwards: the hook saw them.
    assert.ok(lines.some((line) => /\/node_modules\/@modelcontextprotocol\//.test(line)));
  });

  it('seals the run after the one attempt submitted when stdin ends and SIGTERM follows 2 ms later, and leaves no directory behind', async () => {
    const dir = await fixture();
    const server = rawServer(dir);
    const init = await server.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'codex', version: '0' },
    });
    assert.equal((init.result as { serverInfo: { name: string } }).serverInfo.name, 'redline');
    server.notify('notifications/initialized');
    const submitted = await server.request('tools/call', { name: 'redline_submit', arguments: {} });
    const runId = (submitted.result as { structuredContent: { runId: string; decision: string } }).structuredContent.runId;
    // What Codex does at the end of a session.
    server.child.stdin.end();
    await new Promise((resolve) => setTimeout(resolve, 2));
    server.child.kill('SIGTERM');
    const [code, signal] = await server.exited;
    assert.deepEqual([code, signal], [0, null], server.stderr());
    assert.deepEqual(await sealOf(dir, runId), ['aborted', 1, 'the run was stopped by its caller after attempt 1']);
    assert.equal((await redline(['ledger', 'verify', '--ledger', path.join(dir, '.redline/redline.db')])).code, 0);
    assert.deepEqual(await readdir(path.join(dir, '.redline/redline-runs')), []);
  });

  it('refuses a tool call before initialize; a server killed mid-session is sealed crashed and its directories removed when the next one starts', async () => {
    const dir = await fixture();
    const tmp = path.join(dir, '.redline/tmp');
    await mkdir(tmp, { recursive: true });
    const first = rawServer(dir, { env: { TMPDIR: tmp } });
    const early = await Promise.race([
      first.request('tools/call', { name: 'redline_submit', arguments: {} }),
      new Promise<{ error: string }>((resolve) => setTimeout(() => resolve({ error: 'no answer in 10 s' }), 10_000).unref()),
    ]);
    assert.deepEqual(early.error, { code: -32600, message: 'Invalid Request: the server is not initialized; send initialize first' });
    await first.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'codex', version: '0' } });
    const submitted = await first.request('tools/call', { name: 'redline_submit', arguments: {} });
    const { runId } = (submitted.result as { structuredContent: { runId: string } }).structuredContent;
    first.child.kill('SIGKILL');
    await first.exited;
    const runs = path.join(dir, '.redline/redline-runs');
    // The run's directory (its pack and check copy) and the session's baseline stay behind.
    assert.equal((await readdir(runs)).length, 2);
    assert.equal(await sealOf(dir, runId), 'decision');

    const second = rawServer(dir, { env: { TMPDIR: tmp } });
    await second.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'codex', version: '0' } });
    // A call is answered once the session is open, after the recovery.
    await second.request('tools/call', { name: 'redline_status', arguments: {} });
    assert.deepEqual(((await sealOf(dir, runId)) as unknown[]).slice(0, 2), ['crashed', 1]);
    // Left: the new session's baseline and, once it started, its run.
    const left = await readdir(runs);
    assert.equal(left.includes(runId), false);
    assert.equal(left.filter((name) => name.startsWith('mcp-')).length, 1);
    assert.deepEqual(
      (await readdir(tmp)).filter((name) => name.includes(`-${first.child.pid}-`)),
      [],
    );
    second.child.stdin.end();
    assert.deepEqual(await second.exited, [0, null], second.stderr());
    assert.deepEqual(await readdir(runs), []);
  });

  it('finishes the seal when SIGTERM comes while a submit is checking, counting that submit', async () => {
    const dir = await fixture({ test: 'adds slowly', slowMs: 3000 });
    const server = rawServer(dir);
    await server.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'codex', version: '0' } });
    // A call is answered once the session is open: its baseline is taken, so the fix is the agent's.
    await server.request('tools/call', { name: 'redline_status', arguments: {} });
    await writeFile(path.join(dir, 'src/add.js'), RIGHT);
    const submitted = server.request('tools/call', { name: 'redline_submit', arguments: {} });
    void submitted.catch(() => undefined);
    // The status answers while the submit's checks run; then the client goes away mid-check, signalling twice.
    type Status = { structuredContent: { runId: string; running: { checks: string }[] } };
    const status = async (): Promise<Status> => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return (await server.request('tools/call', { name: 'redline_status', arguments: {} })).result as Status;
    };
    let standing = await status();
    while (!standing.structuredContent.running.some((item) => item.checks === 'redline_submit')) standing = await status();
    const { runId } = standing.structuredContent;
    server.child.kill('SIGTERM');
    server.child.kill('SIGTERM');
    const [code] = await server.exited;
    assert.equal(code, 0, server.stderr());
    assert.deepEqual(await sealOf(dir, runId), ['aborted', 1, 'the run was stopped by its caller during attempt 1']);
    assert.deepEqual(await readdir(path.join(dir, '.redline/redline-runs')), []);
  });

  it('says to install the SDK, in one line, exit 2, when it is missing', async () => {
    const dir = await fixture();
    const hide = pathToFileURL(path.join(ROOT, 'test/api/hide-peers.mjs')).href;
    const run = spawnSync(process.execPath, ['--import', hide, BIN, 'mcp', '--mission', path.join(dir, 'mission.yaml')], {
      cwd: dir,
      encoding: 'utf8',
      input: '',
      timeout: 60_000,
      env: { ...process.env, REDLINE_TEST_HIDE: '@modelcontextprotocol/sdk' },
    });
    assert.deepEqual(
      [run.status, run.stdout, run.stderr],
      [
        2,
        '',
        'redline: install @modelcontextprotocol/sdk to serve redline mcp (npm i @modelcontextprotocol/sdk): it is an optional peer dependency of redline-loop\n',
      ],
    );
  });
});
