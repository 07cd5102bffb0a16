import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Script } from 'node:vm';

/** How many code caches a folder keeps (one per build, command and Node.js version): the oldest go first. */
const KEPT = 16;

/** What the CLI bundle exports. */
export interface CliBundle {
  readonly main: (argv: readonly string[]) => Promise<number>;
}

/** Where {@link startBundle} found the bundle and what it did with the code cache. */
export interface StartedBundle {
  readonly bundle: CliBundle;
  /** The cache file, or undefined when there is none to use (turned off, no home, a folder not the user's own). */
  readonly cacheFile: string | undefined;
  /**
   * `used`: compiled from the cache; `rejected`: V8 refused it (another build or Node.js); `none`: no cache
   * to read (none yet, or the folder or file is not the user's own and private); `off`: no folder.
   */
  readonly cache: 'used' | 'rejected' | 'none' | 'off';
  /**
   * Writes the cache when there was none or V8 refused it, holding all the code compiled so far (call it as
   * the process exits); else does nothing. Never throws.
   */
  readonly save: () => void;
}

export interface StartBundleOptions {
  /** The folder of `main.cjs` and `bundle.json` (scripts/bundle-cli.mjs). */
  readonly dir: string;
  /** The command the CLI was asked for (its first argument): each command keeps a cache of its own. */
  readonly command: string | undefined;
  /** `import()` of the caller: the bundle imports the optional peers through it. */
  readonly importer: (specifier: string) => Promise<unknown>;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The code cache's folder: `$REDLINE_CODE_CACHE` (`off` or `0` for none), else `$XDG_CACHE_HOME/redline/code-cache`,
 * else `~/.cache/redline/code-cache`; undefined when there is none.
 */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const setting = env.REDLINE_CODE_CACHE;
  if (setting === 'off' || setting === '0') return undefined;
  if (setting !== undefined && setting !== '') return path.resolve(setting);
  const base = env.XDG_CACHE_HOME !== undefined && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : homeCache();
  return base === undefined ? undefined : path.join(base, 'redline', 'code-cache');
}

function homeCache(): string | undefined {
  const home = os.homedir();
  return home === '' ? undefined : path.join(home, '.cache');
}

/** Whether an entry is the user's own and no one else can write it (a cache is code that will run). */
function ownAndPrivate(info: Stats, kind: 'file' | 'dir'): boolean {
  const uid = process.getuid?.();
  const isKind = kind === 'dir' ? info.isDirectory() : info.isFile();
  return isKind && (uid === undefined || info.uid === uid) && (info.mode & 0o022) === 0;
}

function lstatOrNothing(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/**
 * The cache's name: the build (the bundle's content hash as the build recorded it, and the file as it is
 * now: size, times, inode, so that a bundle changed since in place is another build), the command,
 * Node.js and the architecture. V8 itself only checks the source's length.
 */
function cacheName(hash: string, bundle: Stats, command: string | undefined): string {
  const name = command !== undefined && /^[a-z][a-z-]{0,23}$/.test(command) ? command : 'other';
  const build = createHash('sha256')
    .update(`${hash}\0${bundle.size}\0${bundle.mtimeMs}\0${bundle.ctimeMs}\0${bundle.ino}`)
    .digest('hex')
    .slice(0, 16);
  return `${build}-${name}-${process.version}-${process.arch}.bin`;
}

/** The build's content hash from `bundle.json`, or undefined when it cannot be read (then no cache is used). */
function buildHash(dir: string): string | undefined {
  try {
    const { hash } = JSON.parse(readFileSync(path.join(dir, 'bundle.json'), 'utf8')) as { hash?: unknown };
    return typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash) ? hash : undefined;
  } catch {
    return undefined;
  }
}

/** The code cache file of the bundle in `dir` for `command`, or undefined when none is used. */
export function codeCacheFile(dir: string, command: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const hash = buildHash(dir);
  const folder = hash === undefined ? undefined : codeCacheDir(env);
  return folder === undefined ? undefined : path.join(folder, cacheName(hash as string, statSync(path.join(dir, 'main.cjs')), command));
}

/**
 * Compiles and runs the CLI bundle with a V8 code cache, so that a command does not compile the same code
 * on every start. The cache is read only from a folder and file of the user's own that no one else can write
 * (the cache is code that runs as the user); V8 refuses one made by another build or another Node.js. When
 * the cache was missing or refused, `save` writes a new one, holding what the command compiled, atomically
 * (a temp file renamed over), into a folder it makes private; a folder keeps the newest {@link KEPT}.
 * Nothing about the cache ever fails a command: any error just leaves it out.
 */
export function startBundle({ dir, command, importer, env = process.env }: StartBundleOptions): StartedBundle {
  const file = path.join(dir, 'main.cjs');
  const bytes = readFileSync(file);
  // ASCII throughout as the build writes it (scripts/bundle-cli.mjs): then read as one byte a character.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const cacheFile = codeCacheFile(dir, command, env);
  const folder = cacheFile === undefined ? undefined : path.dirname(cacheFile);
  const cachedData = cacheFile === undefined ? undefined : readCache(folder as string, cacheFile);
  // The bundle is a CommonJS module's body; a sixth parameter hands it the caller's import().
  const script = new Script(`(function (exports, require, module, __filename, __dirname, __redlineImport) {${source}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const cache =
    cacheFile === undefined ? 'off' : cachedData === undefined ? 'none' : script.cachedDataRejected === true ? 'rejected' : 'used';
  const save = (): void => {
    if (cache === 'none' || cache === 'rejected') writeCache(folder as string, cacheFile as string, script);
  };
  const module = { exports: {} as CliBundle };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, createRequire(file), module, file, dir, importer);
  return { bundle: module.exports, cacheFile, cache, save };
}

function readCache(folder: string, cacheFile: string): Buffer | undefined {
  const folderInfo = lstatOrNothing(folder);
  const info = lstatOrNothing(cacheFile);
  if (folderInfo === undefined || info === undefined || !ownAndPrivate(folderInfo, 'dir') || !ownAndPrivate(info, 'file')) return undefined;
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

function writeCache(folder: string, cacheFile: string, script: Script): void {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const folderInfo = lstatOrNothing(folder);
    if (folderInfo === undefined || !ownAndPrivate(folderInfo, 'dir')) return;
    const data = script.createCachedData();
    const temp = `${cacheFile}.${process.pid}.tmp`;
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeFileSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, cacheFile);
    prune(folder);
  } catch {
    // A cache is an optimization: the command has done its work either way.
  }
}

/** Keeps the newest {@link KEPT} caches of the folder; leftover temp files of killed writers go too. */
function prune(folder: string): void {
  const entries = readdirSync(folder)
    .filter((name) => name.endsWith('.bin') || name.endsWith('.tmp'))
    .map((name) => ({ name, info: lstatOrNothing(path.join(folder, name)) }))
    .filter((entry): entry is { name: string; info: Stats } => entry.info !== undefined);
  const now = Date.now();
  const stale = entries.filter(({ name, info }) => name.endsWith('.tmp') && now - info.mtimeMs > 60_000);
  const caches = entries.filter(({ name }) => name.endsWith('.bin')).sort((a, b) => b.info.mtimeMs - a.info.mtimeMs);
  for (const { name } of [...stale, ...caches.slice(KEPT)]) rmSync(path.join(folder, name), { force: true });
}
