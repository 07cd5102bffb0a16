import assert from 'node:assert/strict';
import { chmodSync, chownSync, copyFileSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { codeCacheDir, codeCacheFile, startBundle } from '../../src/cli/start-bundle.js';
import { tempDir } from '../helpers/workspace.js';
import { spawnRedline } from './redline.js';

/** A bundle as scripts/bundle-cli.mjs lays one out: `main.cjs` (a CommonJS body) and `bundle.json`. */
async function fakeBundle(body = 'exports.main = async (argv) => argv.length;'): Promise<string> {
  const dir = await tempDir('redline-bundle-');
  writeFileSync(
    path.join(dir, 'main.cjs'),
    `${body}\nexports.imported = (name) => __redlineImport(name);\nexports.here = () => __filename;\n`,
  );
  writeFileSync(path.join(dir, 'bundle.json'), JSON.stringify({ hash: 'ab'.repeat(32), eager: [] }));
  return dir;
}

const start = (dir: string, cache: string, command: string | undefined = 'run') =>
  startBundle({ dir, command, importer: async (specifier) => ({ specifier }), env: { REDLINE_CODE_CACHE: cache } });

describe('startBundle (the CLI bundle with a code cache)', () => {
  it('runs the bundle as a CommonJS module that imports through the caller, and caches its code once', async () => {
    const dir = await fakeBundle();
    const cache = path.join(await tempDir('redline-code-cache-'), 'nested', 'cache');
    const first = start(dir, cache);
    assert.equal(await first.bundle.main(['a', 'b']), 2);
    assert.deepEqual(await (first.bundle as unknown as { imported: (name: string) => Promise<unknown> }).imported('pg'), {
      specifier: 'pg',
    });
    assert.equal((first.bundle as unknown as { here: () => string }).here(), path.join(dir, 'main.cjs'));
    assert.equal(first.cache, 'none');
    first.save();
    // The folder is made private, the file too; named after the build, the command and Node.js.
    assert.equal(statSync(cache).mode & 0o777, 0o700);
    assert.match(path.basename(first.cacheFile as string), new RegExp(`^[0-9a-f]{16}-run-${process.version}-${process.arch}\\.bin$`));
    assert.equal(statSync(first.cacheFile as string).mode & 0o777, 0o600);
    const second = start(dir, cache);
    assert.equal(second.cache, 'used');
    assert.equal(await second.bundle.main([]), 0);
    // A cache that was used is not written again.
    const written = statSync(second.cacheFile as string).mtimeMs;
    utimesSync(second.cacheFile as string, new Date(0), new Date(0));
    second.save();
    assert.equal(statSync(second.cacheFile as string).mtimeMs, 0);
    assert.ok(written > 0);
    // Each command keeps its own; an argument that is no command name shares one.
    const other = codeCacheFile(dir, 'other', { REDLINE_CODE_CACHE: cache }) as string;
    assert.match(other, new RegExp(`-other-${process.version}-${process.arch}\\.bin$`));
    assert.notEqual(other, first.cacheFile);
    assert.equal(start(dir, cache, '--help').cacheFile, other);
    assert.equal(start(dir, cache, '../../x').cacheFile, other);
  });

  it('refuses a damaged cache, or one of another build, and writes it anew', async () => {
    // Sources this process never compiled: V8 would take a compiled one from its own memory, cache or not.
    const dir = await fakeBundle(`exports.main = async (argv) => argv.length; // ${process.hrtime.bigint()}`);
    const cache = await tempDir('redline-code-cache-');
    const file = codeCacheFile(dir, 'run', { REDLINE_CODE_CACHE: cache }) as string;
    writeFileSync(file, 'not a code cache', { mode: 0o600 });
    const damaged = start(dir, cache);
    assert.equal(damaged.cache, 'rejected');
    assert.equal(await damaged.bundle.main(['x']), 1);
    damaged.save();
    assert.ok(statSync(file).size > 100, 'written anew');
    // Another build: a cache of its own. Given the first build's cache under its name, V8 refuses it.
    writeFileSync(path.join(dir, 'main.cjs'), `exports.main = async () => 42; // another build ${process.hrtime.bigint()}\n`);
    const otherFile = codeCacheFile(dir, 'run', { REDLINE_CODE_CACHE: cache }) as string;
    assert.notEqual(otherFile, file);
    copyFileSync(file, otherFile);
    const other = start(dir, cache);
    assert.equal(other.cache, 'rejected');
    assert.equal(await other.bundle.main([]), 42);
  });

  it('reads no cache from a folder or file that others can write or that is not the user’s, and writes none there', async () => {
    const dir = await fakeBundle();
    const cache = await tempDir('redline-code-cache-');
    const first = start(dir, cache);
    first.save();
    const file = first.cacheFile as string;
    chmodSync(file, 0o666);
    assert.equal(start(dir, cache).cache, 'none');
    chmodSync(file, 0o600);
    assert.equal(start(dir, cache).cache, 'used');
    chmodSync(cache, 0o777);
    const open = start(dir, cache);
    assert.equal(open.cache, 'none');
    const before = readFileSync(file);
    open.save();
    assert.deepEqual(readFileSync(file), before);
    chmodSync(cache, 0o700);
    if (process.getuid?.() === 0) {
      chownSync(file, 65534, 65534);
      assert.equal(start(dir, cache).cache, 'none', 'a file another user owns is not read');
    }
  });

  it('keeps the newest 16 caches of a folder and removes stale temp files; `off` turns the cache off', async () => {
    const dir = await fakeBundle();
    const cache = await tempDir('redline-code-cache-');
    for (let index = 0; index < 20; index += 1) {
      writeFileSync(path.join(cache, `old-${index}.bin`), 'x');
      utimesSync(path.join(cache, `old-${index}.bin`), new Date(1000 * index), new Date(1000 * index));
    }
    writeFileSync(path.join(cache, 'killed.bin.123.tmp'), 'x');
    utimesSync(path.join(cache, 'killed.bin.123.tmp'), new Date(0), new Date(0));
    start(dir, cache).save();
    const left = readdirSync(cache).sort();
    assert.equal(left.length, 16);
    assert.ok(left.includes(path.basename(codeCacheFile(dir, 'run', { REDLINE_CODE_CACHE: cache }) as string)));
    assert.ok(!left.includes('killed.bin.123.tmp'));
    assert.ok(!left.includes('old-0.bin') && left.includes('old-19.bin'));
    for (const setting of ['off', '0']) {
      const off = startBundle({ dir, command: 'run', importer: async () => ({}), env: { REDLINE_CODE_CACHE: setting } });
      assert.deepEqual([off.cache, off.cacheFile], ['off', undefined]);
      off.save();
    }
  });

  it('finds its folder in $REDLINE_CODE_CACHE, else $XDG_CACHE_HOME, else ~/.cache', () => {
    assert.equal(codeCacheDir({ REDLINE_CODE_CACHE: '/x/y' }), '/x/y');
    assert.equal(codeCacheDir({ XDG_CACHE_HOME: '/xdg' }), '/xdg/redline/code-cache');
    // A relative XDG_CACHE_HOME is invalid by its specification: ignored.
    assert.match(codeCacheDir({ XDG_CACHE_HOME: 'rel' }) ?? '', /\/\.cache\/redline\/code-cache$/);
    assert.equal(codeCacheDir({ REDLINE_CODE_CACHE: 'off', XDG_CACHE_HOME: '/xdg' }), undefined);
  });

  it("the built CLI writes its cache after a command did its work, help's into a cache of its own, and uses it on the next start", async () => {
    const cache = path.join(await tempDir('redline-code-cache-'), 'cache');
    const status = ['cache', 'status', '--cache-dir', path.join(cache, '..', 'no-cache-here')];
    const env = { ...process.env, REDLINE_CODE_CACHE: cache };
    const help = spawnRedline(['cache', 'status', '--help'], { env });
    assert.equal(help.code, 0, help.stderr);
    const helpCache = new RegExp(`^[0-9a-f]{16}-help-${process.version}-${process.arch}\\.bin$`);
    assert.deepEqual(
      readdirSync(cache).map((name) => helpCache.test(name)),
      [true],
      "help writes the help cache, not the command's",
    );
    const again = spawnRedline(['--help'], { env });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(readdirSync(cache).length, 1, 'all help shares it');
    const first = spawnRedline(status, { env });
    assert.equal(first.code, 0, first.stderr);
    const [name] = readdirSync(cache).filter((entry) => !helpCache.test(entry));
    assert.match(name ?? '', new RegExp(`^[0-9a-f]{16}-cache-${process.version}-${process.arch}\\.bin$`));
    const file = path.join(cache, name as string);
    utimesSync(file, new Date(0), new Date(0));
    const second = spawnRedline(status, { env });
    assert.deepEqual([second.code, second.stdout], [0, first.stdout]);
    assert.equal(statSync(file).mtimeMs, 0, 'used, not written again');
    writeFileSync(file, 'damaged');
    const third = spawnRedline(status, { env });
    assert.deepEqual([third.code, third.stdout], [0, first.stdout]);
    assert.ok(statSync(file).size > 1000, 'written anew');
  });

  it('a bundle changed in place, at the same length, is another build: its code is compiled, not taken from the cache', async () => {
    const dir = await fakeBundle(`exports.main = async () => 'right'; // ${process.hrtime.bigint()}`);
    const cache = await tempDir('redline-code-cache-');
    const first = start(dir, cache);
    assert.equal(await first.bundle.main([]), 'right');
    first.save();
    const file = path.join(dir, 'main.cjs');
    writeFileSync(file, readFileSync(file, 'utf8').replace("'right'", "'wrong'"));
    const changed = start(dir, cache);
    assert.notEqual(changed.cacheFile, first.cacheFile);
    assert.equal(changed.cache, 'none');
    assert.equal(await changed.bundle.main([]), 'wrong');
    // Without a readable bundle.json there is no build to name a cache after: none is used, the CLI runs.
    writeFileSync(path.join(dir, 'bundle.json'), '{');
    const unnamed = start(dir, cache);
    assert.deepEqual([unnamed.cache, unnamed.cacheFile, await unnamed.bundle.main([])], ['off', undefined, 'wrong']);
  });
});
