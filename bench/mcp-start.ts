// How fast `redline mcp` (the built CLI) answers a client's handshake, against a bare `node -e` that answers
// the same `initialize` line: clients give a server about a second (Codex starts the model's first turn with
// the tools of the servers ready by then). Quick: a few rounds of fresh processes, taking turns.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface McpStartResult {
  /** Milliseconds from spawn to the answer to `initialize`, medians of the rounds. */
  readonly bareMs: number;
  readonly initializeMs: number;
  /** From spawn to the answer to `tools/list`, sent as soon as `initialize` was answered. */
  readonly toolsMs: number;
  /** From spawn to the "serving" note on stderr: the SDK, the mission and the ledger loaded, the baseline taken, the run started. */
  readonly servingMs: number;
  /** `initializeMs / bareMs`, the median of the rounds' ratios. */
  readonly ratio: number;
  readonly rounds: number;
  readonly load: number;
}

const ROOT = path.resolve(import.meta.dirname, '..');
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;

// The least a node process does to answer: read the first line, write one line back.
const BARE = `process.stdin.once('data', () => { process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{}}\\n'); process.exit(0); });`;

async function fixture(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'redline-bench-mcp-'));
  const files: Record<string, string> = {
    'package.json': '{ "type": "module" }\n',
    'src/add.js': 'export const add = (a, b) => a - b;\n',
    'test/add.test.js':
      "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { add } from '../src/add.js';\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
    'mission.yaml': [
      'id: adder',
      'goal: Make add return the sum.',
      'workspace: .',
      "scope: ['src/**']",
      'checks:',
      '  - { name: tests, kind: test-runner, command: node --test-reporter=tap test/add.test.js, format: tap, timeout: 30s }',
      '',
    ].join('\n'),
  };
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
  }
  return dir;
}

/** Milliseconds from spawn to each line the process writes on stdout, and to the first stderr line matching `serving`. */
async function timed(args: readonly string[], env: NodeJS.ProcessEnv, { tools }: { tools: boolean }) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: number[] = [];
  let serving: number | undefined;
  let out = '';
  // The client goes once it has both answers and the server says it serves (in either order).
  const doneWhenServed = (): void => {
    if (lines.length >= 2 && serving !== undefined) child.stdin.end();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    while (out.includes('\n')) {
      out = out.slice(out.indexOf('\n') + 1);
      lines.push(performance.now() - started);
      if (lines.length === 1 && tools) {
        child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n');
      }
      doneWhenServed();
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (serving === undefined && chunk.includes('serving')) {
      serving = performance.now() - started;
      doneWhenServed();
    }
  });
  child.stdin.write(INITIALIZE);
  await new Promise((resolve) => child.once('exit', resolve));
  return { lines, serving };
}

export async function mcpStartBench({ rounds = 7 }: { rounds?: number } = {}): Promise<McpStartResult> {
  const dir = await fixture();
  const env = { ...process.env, REDLINE_SCRATCH: dir };
  const redlineArgs = [path.join(ROOT, 'bin/redline.js'), 'mcp', '--mission', path.join(dir, 'mission.yaml')];
  const bare: number[] = [];
  const initialize: number[] = [];
  const tools: number[] = [];
  const serving: number[] = [];
  const ratios: number[] = [];
  try {
    // One warm-up of each (the file system cache), then rounds taking turns.
    await timed(['-e', BARE], env, { tools: false });
    await timed(redlineArgs, env, { tools: true });
    for (let round = 0; round < rounds; round += 1) {
      const runBare = () => timed(['-e', BARE], env, { tools: false });
      const runRedline = () => timed(redlineArgs, env, { tools: true });
      // The order alternates, so neither always starts right after the other's exit.
      const plainFirst = round % 2 === 0 ? await runBare() : undefined;
      const served = await runRedline();
      const plain = (plainFirst ?? (await runBare())).lines[0] as number;
      bare.push(plain);
      initialize.push(served.lines[0] as number);
      tools.push(served.lines[1] as number);
      serving.push(served.serving as number);
      ratios.push((served.lines[0] as number) / plain);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return {
    bareMs: median(bare),
    initializeMs: median(initialize),
    toolsMs: median(tools),
    servingMs: median(serving),
    ratio: median(ratios),
    rounds,
    load: os.loadavg()[0] ?? 0,
  };
}
