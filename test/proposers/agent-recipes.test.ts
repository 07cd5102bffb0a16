import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { Finding } from '../../src/core/finding.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission, type RunResult } from '../../src/loop/run-mission.js';
import { loadMission } from '../../src/mission/load.js';
import { buildProposer } from '../../src/roles/build-proposer.js';
import { tempWorkspace, tree, tempDir } from '../helpers/workspace.js';
import { dataOf } from '../helpers/records.js';

// The recipes of docs/agents.md, run exactly as the page shows them, against stand-ins named like the real
// agent CLIs (test/fixtures/agents/stand-ins/): what is tested is the wiring — flags, prompt, usage report.
const DOC = await readFile(path.resolve(import.meta.dirname, '../../docs/agents.md'), 'utf8');
const STAND_INS = path.resolve(import.meta.dirname, '../fixtures/agents/stand-ins');

interface Block {
  readonly lang: string;
  readonly text: string;
}

/** The fenced code blocks of a Markdown text. */
function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let open: { lang: string; lines: string[] } | undefined;
  for (const line of markdown.split('\n')) {
    if (open === undefined) {
      const fence = /^```(\w*)$/.exec(line);
      if (fence !== null) open = { lang: fence[1] ?? '', lines: [] };
    } else if (line === '```') {
      blocks.push({ lang: open.lang, text: open.lines.join('\n') });
      open = undefined;
    } else open.lines.push(line);
  }
  return blocks;
}

type Snippet = Record<string, unknown> & { proposer: { kind: string; command: string; reportsTokens?: boolean; reportsCost?: boolean } };

const blocks = fencedBlocks(DOC);
const baseBlock = blocks.find((block) => block.lang === 'yaml' && block.text.startsWith('# mission.yaml\n'));
const BASE = parseYaml(baseBlock?.text ?? '{}') as Record<string, unknown> & { budgets: Record<string, unknown> };
/** Recipe name → the mission fields its block adds. */
const RECIPES = new Map(
  blocks.flatMap((block) => {
    const name = /^# recipe: (\S+)\n/.exec(block.text)?.[1];
    return block.lang === 'yaml' && name !== undefined ? [[name, parseYaml(block.text) as Snippet] as const] : [];
  }),
);
/** Every `--agent '…'` command of the page's shell blocks. */
const AGENT_FLAGS = blocks
  .filter((block) => block.lang === 'sh')
  .flatMap((block) => [...block.text.matchAll(/--agent '([^']*)'/g)].map((match) => match[1] as string));

/** What each stand-in reports, as the recipe must turn it into the usage file. */
const USAGE: Record<string, { inputTokens: number; outputTokens: number; costUsd?: number }> = {
  aider: { inputTokens: 2400, outputTokens: 180, costUsd: 0.0093 },
};

const WORKSPACE = {
  'src/math.js': 'export const add = (a, b) => a - b;\n',
  'test/math.test.js':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/math.js';\ntest('add', () => assert.equal(add(2, 3), 5));\n",
  'package.json': '{"type":"module"}\n',
};
const FIXED = { 'src/math.js': 'export const add = (a, b) => a + b;\n' };

const scratchDir = await tempDir('redline-recipes-');
// The sandbox shows this HOME read-only, as it shows yours.
const home = await mkdtemp('/var/tmp/redline-recipes-home-');
const saved = { PATH: process.env.PATH, HOME: process.env.HOME };
const workspaces: string[] = [];
before(() => {
  // The agent inherits redline's environment: the stand-ins come first on PATH; they keep state in a HOME of their own.
  process.env.PATH = `${STAND_INS}${path.delimiter}${saved.PATH ?? ''}`;
  process.env.HOME = home;
});
after(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await rm(scratchDir, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
  await Promise.all(workspaces.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A workspace holding the failing test and `mission.yaml` (the page's mission plus `fields`). */
async function missionWorkspace(fields: Record<string, unknown>): Promise<{ dir: string; file: string }> {
  const dir = await tempWorkspace(WORKSPACE);
  workspaces.push(dir);
  const file = path.join(dir, 'mission.yaml');
  await writeFile(file, stringifyYaml({ ...BASE, ...fields }));
  return { dir, file };
}

/** Runs the page's mission with recipe `name`, under budgets the recipe's usage report must make measurable. */
async function runRecipe(name: string): Promise<{ result: RunResult; ledger: MemoryLedger; dir: string; before: Record<string, string> }> {
  const snippet = RECIPES.get(name);
  assert.ok(snippet !== undefined, `docs/agents.md has no recipe ${name}`);
  const expected = USAGE[name];
  const budgets = { ...BASE.budgets, maxTokens: 100_000, ...(expected?.costUsd === undefined ? {} : { maxCostUsd: 1 }) };
  const { dir, file } = await missionWorkspace({ ...snippet, budgets });
  const before = await tree(dir);
  const mission = await loadMission(file);
  const ledger = new MemoryLedger();
  const result = await runMission({ mission, proposer: await buildProposer(mission), ledger, scratchDir });
  return { result, ledger, dir, before };
}

/** The evidence of the first attempt's proposer error, if it had one. */
async function proposerError(ledger: MemoryLedger, runId: string): Promise<Finding | undefined> {
  const findings = dataOf(await ledger.records(runId), 'attempt').findings ?? [];
  return findings.find((finding) => finding.check === 'proposer');
}

async function assertFixed(name: string, { result, ledger, dir, before }: Awaited<ReturnType<typeof runRecipe>>): Promise<void> {
  const error = await proposerError(ledger, result.runId);
  assert.equal(error, undefined, `${name}: ${error?.message ?? ''}\n${error?.evidenceRef ?? ''}`);
  assert.deepEqual([result.outcome, result.verification, result.attempts], ['complete', 'verified', 1]);
  // Only the edit: the agent's histories (ignored) and its state (under HOME) are not part of it.
  assert.deepEqual(result.candidate.files, FIXED);
  assert.deepEqual(await tree(dir), before, 'the user workspace is untouched');
  assert.equal(result.workspaceChanged, undefined);
  // The agent's own report went to $REDLINE_TRANSCRIPT: its end is in the attempt's account.
  const { account } = dataOf(await ledger.records(result.runId), 'attempt');
  assert.deepEqual([account?.kind, account?.exitCode], ['agent', 0]);
  assert.notEqual(account?.transcript?.text ?? '', '', `${name}: no transcript kept`);
  const usage = USAGE[name] as { inputTokens: number; outputTokens: number; costUsd?: number };
  assert.equal(result.counters.inputTokens, usage.inputTokens);
  assert.equal(result.counters.outputTokens, usage.outputTokens);
  assert.ok(Math.abs(result.counters.costUsd - (usage.costUsd ?? 0)) < 1e-9, `cost ${result.counters.costUsd}`);
}

describe('docs/agents.md', () => {
  it('holds the mission and the recipes that are tested, and every --agent line is one of them, byte for byte', () => {
    assert.equal(BASE.id, 'fix-add');
    assert.deepEqual([...RECIPES.keys()].sort(), Object.keys(USAGE).sort());
    for (const [name, snippet] of RECIPES) {
      assert.equal(snippet.proposer.kind, 'agent', name);
      // Single quotes would end the `--agent '…'` quoting.
      assert.ok(!snippet.proposer.command.includes("'"), `${name} must not contain a single quote`);
    }
    const commands = new Map([...RECIPES].map(([name, snippet]) => [snippet.proposer.command, name]));
    for (const command of AGENT_FLAGS) assert.ok(commands.has(command), `an --agent line is no recipe:\n${command}`);
    assert.deepEqual(AGENT_FLAGS.map((command) => commands.get(command)).sort(), ['aider']);
  });
});

describe('agent recipes (stand-ins for the CLIs)', () => {
  it('aider: fixes the failing test in place, verified; the workspace is untouched and the usage is charged', async () => {
    await assertFixed('aider', await runRecipe('aider'));
  });
});
