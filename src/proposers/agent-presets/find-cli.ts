import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AgentPreset } from './agent-preset.js';

/**
 * The folder agent CLIs are installed into for the presets: `$REDLINE_AGENT_CACHE`, else
 * `$XDG_CACHE_HOME/redline-agents`, else `~/.cache/redline-agents`.
 */
export function agentCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.REDLINE_AGENT_CACHE !== undefined && env.REDLINE_AGENT_CACHE !== '') return env.REDLINE_AGENT_CACHE;
  const cache = env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache');
  return path.join(cache, 'redline-agents');
}

/** Where a preset's pinned version lives in the cache: `npm install --prefix <this> <package>@<version>` puts it there. */
export function cachedPrefix(preset: AgentPreset, cache: string): string {
  return path.join(cache, `${preset.package}@${preset.version}`);
}

async function executable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The program a preset runs: its CLI on `PATH` (whatever version is installed there), else the pinned
 * version in the cache ({@link cachedPrefix}); undefined when neither has it.
 */
export async function findAgentCli(preset: AgentPreset, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, preset.bin);
    if (await executable(file)) return file;
  }
  const cached = path.join(cachedPrefix(preset, agentCacheDir(env)), 'node_modules', '.bin', preset.bin);
  return (await executable(cached)) ? cached : undefined;
}
