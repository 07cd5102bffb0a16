// `cli-start`: milliseconds from spawn to exit of the built CLI's `--version` and `--help`, next to a bare `node -e ''`.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { median } from './noop-run.js';

const CLI = path.join(path.resolve(import.meta.dirname, '..'), 'bin/redline.js');

export interface CliStartResult {
  readonly rounds: number;
  readonly bareMs: number;
  readonly versionMs: number;
  readonly helpMs: number;
  readonly load: number;
}

/** Wall milliseconds of one process from spawn to exit; throws unless it exits 0. */
function timedExit(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`cli-start: node ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

/** One warm-up of each, then `rounds` rounds taking turns (the order rotated per round); medians. */
export async function cliStartBench({ rounds = 11 }: { rounds?: number } = {}): Promise<CliStartResult> {
  const commands = { bare: ['-e', ''], version: [CLI, '--version'], help: [CLI, '--help'] };
  const names = Object.keys(commands) as (keyof typeof commands)[];
  const times: Record<keyof typeof commands, number[]> = { bare: [], version: [], help: [] };
  for (const name of names) await timedExit(commands[name]);
  for (let round = 0; round < rounds; round += 1)
    for (let turn = 0; turn < names.length; turn += 1) {
      const name = names[(round + turn) % names.length] as keyof typeof commands;
      times[name].push(await timedExit(commands[name]));
    }
  return { rounds, bareMs: median(times.bare), versionMs: median(times.version), helpMs: median(times.help), load: os.loadavg()[0] ?? 0 };
}
