import assert from 'node:assert/strict';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
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
async function fixture({ maxAttempts = 5, test = 'adds two numbers' }: { maxAttempts?: number; test?: string } = {}): Promise<string> {
  return tempWorkspace({
    'package.json': '{ "name": "adder", "type": "module" }\n',
    'src/add.js': WRONG,
    'test/add.test.js': [
      "import assert from 'node:assert/strict';",
      "import { test } from 'node:test';",
      "import { add } from '../src/add.js';",
      `test(${JSON.stringify(test)}, () => assert.equal(add(2, 3), 5));`,
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
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    assert.deepEqual(tools, ['redline_checks', 'redline_status', 'redline_submit']);
    assert.deepEqual(await call(client, 'redline_status'), { state: 'none', budgetsLeft: { attempts: 5 } });

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
    const ledger = await SqliteLedger.open({ database: path.join(dir, '.redline/redline.db') });
    try {
      const seal = (await ledger.records(submitted.runId as string)).at(-1);
      assert.equal(seal?.type === 'run.sealed' ? seal.data.stopReason : seal?.type, 'aborted');
    } finally {
      await ledger.close();
    }
    assert.equal((await redline(['ledger', 'verify', '--ledger', path.join(dir, '.redline/redline.db')])).code, 0);
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
        'redline: install @modelcontextprotocol/sdk to serve redline mcp (npm i @modelcontextprotocol/sdk): it is an optional peer dependency of redline\n',
      ],
    );
  });
});
