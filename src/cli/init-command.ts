import { spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { inventoryCounts } from '../core/test-inventory.js';
import { detectRunners, type DetectedRunner } from '../init/detect-runner.js';
import { formatCheckFor } from '../init/format-check.js';
import { missionText } from '../init/mission-text.js';
import { diskFiles } from '../init/repo-files.js';
import { scopeFromLayout } from '../init/scope-from-layout.js';
import { checkBaseline, type BaselineReport } from '../loop/check-baseline.js';
import { AGENT_PRESET_NAMES } from '../mission/schema.js';
import { loadMission } from '../mission/load.js';
import { AGENT_PRESETS } from '../proposers/agent-presets/presets.js';
import type { Output } from './run-command.js';
import { clean, jsonLine } from './terminal-text.js';

export interface InitCommandOptions {
  /** Write without asking (also when stdin or stdout is no terminal). */
  readonly yes?: boolean;
  /** Overwrite an existing mission.yaml. */
  readonly force?: boolean;
  /** The agent preset to write, or `none`; by default the first preset whose CLI is on PATH. */
  readonly agent?: string;
  readonly json?: boolean;
}

const MISSION_FILE = 'mission.yaml';

/** `python3 -m pytest --version`'s first line (`pytest 8.3.2`), or undefined when it does not run. */
function pytestVersion(cwd: string): string | undefined {
  const result = spawnSync('python3', ['-m', 'pytest', '--version'], { cwd, encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) return undefined;
  return `${result.stdout}\n${result.stderr}`.match(/pytest \S+/)?.[0];
}

/** The first agent preset whose CLI is an executable on PATH. */
async function agentOnPath(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  for (const name of AGENT_PRESET_NAMES) {
    const bin = AGENT_PRESETS[name]?.bin ?? name;
    for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
      if (
        await access(path.join(dir, bin), constants.X_OK).then(
          () => true,
          () => false,
        )
      )
        return name;
    }
  }
  return undefined;
}

/** What a runner's check found on the baseline, in one line. */
function baselineLine(runner: DetectedRunner, check: string, baseline: BaselineReport): string {
  const inventory = baseline.inventories[check];
  if (inventory === undefined) {
    const finding = baseline.findings.find((item) => item.check === check && item.status !== 'pass');
    return `${runner.label}: no report (${finding === undefined ? 'the check did not run' : `${finding.reasonCodes.join(', ')}: ${finding.message.split('\n')[0] ?? ''}`})`;
  }
  const counts = inventoryCounts(inventory);
  const others = [...(counts.skip > 0 ? [`${counts.skip} skipped`] : []), ...(counts.todo > 0 ? [`${counts.todo} todo`] : [])];
  const tally = `${counts.total} test${counts.total === 1 ? '' : 's'}, ${counts.fail} failing${others.map((item) => `, ${item}`).join('')}`;
  const passes = baseline.findings.filter((item) => item.check === check).every((item) => item.status === 'pass');
  if (passes) return `${runner.label}: ${tally} — the red line is in place; a failing test is what a task adds`;
  const reasons = baseline.findings
    .filter((item) => item.check === check && item.status !== 'pass')
    .flatMap((item) => item.reasonCodes)
    .slice(0, 5);
  return `${runner.label}: ${tally} — the suite does not pass yet (${reasons.join(', ')}): a run's task is to make it pass`;
}

async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return !/^n/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}

/**
 * `redline init [DIR]`: detects the repository's test runners, writes a commented mission.yaml whose demand
 * check runs the suite with a report redline reads, loads it with the mission loader, and runs its baseline once.
 */
export async function initCommand(dir: string | undefined, options: InitCommandOptions, { print, progress }: Output): Promise<number> {
  const root = path.resolve(dir ?? '.');
  if (
    !(await stat(root).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
    progress(`redline init: ${clean(root)} is not a directory`);
    return 2;
  }
  const file = path.join(root, MISSION_FILE);
  const exists = await stat(file).then(
    () => true,
    () => false,
  );
  if (exists && options.force !== true) {
    progress(`redline init: ${clean(file)} already exists; it is left as it is (pass --force to overwrite it)`);
    return 2;
  }
  if (options.agent !== undefined && options.agent !== 'none' && !(AGENT_PRESET_NAMES as readonly string[]).includes(options.agent)) {
    progress(`redline init: Expected --agent ${AGENT_PRESET_NAMES.join(', ')} or none, got ${clean(options.agent)}`);
    return 2;
  }

  const files = diskFiles(root);
  let runners = detectRunners({ files });
  if (runners.some((runner) => runner.runner === 'pytest')) runners = detectRunners({ files, pytest: pytestVersion(root) });
  const scope = scopeFromLayout(files);
  const dirs = scope.scope.flatMap((glob) => (glob.includes('/') ? [glob.split('/')[0] as string] : []));
  const agent = options.agent === 'none' ? undefined : (options.agent ?? (await agentOnPath()));
  const id =
    path
      .basename(root)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'mission';
  const text = missionText({ id, runners, scope, formatCheck: formatCheckFor(files, dirs), agent });

  progress(
    runners.length === 0
      ? 'no test runner found: the mission gets a format check, and its runs will be unverified'
      : `found ${runners.map((runner) => `${clean(runner.label)} (${runner.evidence.map(clean).join(', ')})`).join('; ')}`,
  );
  progress(`scope: ${scope.scope.map(clean).join(', ')}${agent === undefined ? '' : `; agent: ${agent}`}`);
  const interactive = options.yes !== true && process.stdin.isTTY && process.stdout.isTTY;
  if (interactive && !(await confirm(`write ${file}? [Y/n] `))) {
    progress('nothing written');
    return 1;
  }
  await writeFile(file, text, { flag: options.force === true ? 'w' : 'wx' });
  const mission = await loadMission(file);
  progress(`wrote ${clean(file)}; running its checks once on the repository as it is…`);

  const baseline = await checkBaseline({ mission });
  const lines =
    runners.length === 0
      ? [
          `format check: ${baseline.findings.every((item) => item.status === 'pass') ? 'passes' : 'fails'} on the repository as it is; without a test runner runs end unverified`,
        ]
      : runners.map((runner, index) => baselineLine(runner, index === 0 ? 'tests' : runner.runner, baseline));
  const next = `next: npx redline run ${MISSION_FILE}${agent === undefined ? ' --agent codex|claude|qwen|gemini (or --proposer <program>)' : ''}`;
  if (options.json === true)
    print(
      jsonLine({
        mission: file,
        runners: runners.map(({ runner, label, command, format }) => ({ runner, label, command, format })),
        scope: scope.scope,
        agent: agent ?? null,
        baseline: Object.fromEntries(Object.entries(baseline.inventories).map(([check, inventory]) => [check, inventoryCounts(inventory)])),
        environment: baseline.environment ?? null,
      }),
    );
  else {
    for (const line of lines) print(clean(line));
    if (baseline.environment !== undefined) print(`the check cannot run here: ${clean(baseline.environment)}`);
    print(next);
  }
  return baseline.environment === undefined ? 0 : 1;
}
