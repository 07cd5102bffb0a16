import path from 'node:path';
import { cacheEntries, defaultCacheDir, pruneCache, type CacheEntryInfo } from '../workspace/workspace-cache.js';
import type { Output } from './run-command.js';
import { clean, jsonLine } from './terminal-text.js';

// `redline cache status|prune`: the cache folder that keeps each workspace's last snapshot and check
// copy between runs (docs/workspaces.md).

export interface CacheOptions {
  readonly cacheDir?: string;
  readonly json?: boolean;
}

export interface PruneOptions extends CacheOptions {
  readonly all?: boolean;
  /** Entries last used longer ago than this (ms) go. */
  readonly olderThan?: number;
  /** Least recently used entries go until the rest fit (bytes). */
  readonly maxSize?: number;
}

/** The cache folder a command names, or undefined (with why, printed) when caching is off. */
function folderOf({ cacheDir }: CacheOptions, { progress }: Output): string | undefined {
  const dir = cacheDir === undefined ? defaultCacheDir() : path.resolve(cacheDir);
  if (dir === undefined) progress('the cache is off (REDLINE_CACHE=off): name a folder with --cache-dir');
  return dir;
}

/** A size as people read it: 1.2 GiB, 340 MiB, 12 KiB. */
function readable(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

function entryJson(entry: CacheEntryInfo): unknown {
  return { ...entry, lastUsed: new Date(entry.lastUsed).toISOString() };
}

/** `redline cache status`: one line per workspace entry, then the folder's total. */
export async function cacheStatusCommand(options: CacheOptions, output: Output): Promise<number> {
  const dir = folderOf(options, output);
  if (dir === undefined) return 0;
  const entries = cacheEntries(dir).reverse();
  const total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
  if (options.json === true) {
    for (const entry of entries) output.print(jsonLine(entryJson(entry)));
    return 0;
  }
  for (const entry of entries)
    output.print(
      `${clean(entry.workspace)}\n  ${clean(entry.dir)}: ${readable(entry.bytes)}, ${entry.entries} entries, last used ${new Date(entry.lastUsed).toISOString()}${entry.inUse ? ', in use by a run' : ''}`,
    );
  output.progress(`cache ${clean(dir)}: ${entries.length} workspace(s), ${readable(total)}`);
  return 0;
}

/** `redline cache prune`: removes entries no run holds, as the options say (and those whose workspace is gone). */
export async function cachePruneCommand(options: PruneOptions, output: Output): Promise<number> {
  const dir = folderOf(options, output);
  if (dir === undefined) return 0;
  if (options.all !== true && options.olderThan === undefined && options.maxSize === undefined) {
    output.progress('Expected --all, --older-than or --max-size, got none (entries of workspaces that are gone are removed anyway)');
  }
  const removed = await pruneCache({
    cacheDir: dir,
    ...(options.all === true ? { all: true } : {}),
    ...(options.olderThan === undefined ? {} : { olderThan: Date.now() - options.olderThan }),
    ...(options.maxSize === undefined ? {} : { maxBytes: options.maxSize }),
  });
  const freed = removed.reduce((sum, entry) => sum + entry.bytes, 0);
  if (options.json === true) output.print(jsonLine({ removed: removed.map(entryJson), freedBytes: freed }));
  else {
    for (const entry of removed) output.print(`removed ${clean(entry.workspace)} (${readable(entry.bytes)})`);
    output.progress(`cache ${clean(dir)}: ${removed.length} entr${removed.length === 1 ? 'y' : 'ies'} removed, ${readable(freed)} freed`);
  }
  return 0;
}
