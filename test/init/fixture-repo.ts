import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../cli/redline.js';
import { tempDir } from '../helpers/workspace.js';

/** Where installed fixture dependencies are kept between runs: `$REDLINE_TEST_NPM_CACHE`, else ~/.cache/redline-test-npm. */
const CACHE = process.env.REDLINE_TEST_NPM_CACHE ?? path.join(os.homedir(), '.cache', 'redline-test-npm');

/**
 * The node_modules of a fixture's package.json (pinned versions), installed from the npm registry once into
 * the cache, keyed by the package.json's hash: reruns copy it and need no network.
 */
async function installed(fixture: string, manifest: string): Promise<string> {
  const key = `${fixture}-${createHash('sha256').update(manifest).digest('hex').slice(0, 12)}`;
  const dir = path.join(CACHE, key);
  if (existsSync(path.join(dir, 'node_modules'))) return path.join(dir, 'node_modules');
  const staging = `${dir}.staging-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeFile(path.join(staging, 'package.json'), manifest);
  const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--cache', path.join(CACHE, '_npm')], {
    cwd: staging,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (npm.status !== 0) {
    await rm(staging, { recursive: true, force: true });
    throw new Error(`npm install of ${fixture}'s dependencies failed (exit ${npm.status}): ${npm.stderr}`);
  }
  // Another process may have finished first: either copy is the same install.
  await rename(staging, dir).catch(() => rm(staging, { recursive: true, force: true }));
  return path.join(dir, 'node_modules');
}

/**
 * A temp copy of test/fixtures/init/<fixture>, with its npm dependencies (if it declares any) in its own
 * node_modules; removed when the test process exits.
 */
export async function fixtureRepo(fixture: string): Promise<string> {
  const source = path.join(ROOT, 'test/fixtures/init', fixture);
  const dir = path.join(await tempDir('redline-init-'), fixture);
  await cp(source, dir, { recursive: true });
  const manifest = await readFile(path.join(source, 'package.json'), 'utf8').catch(() => undefined);
  if (manifest !== undefined && /"devDependencies"/.test(manifest)) {
    // cp(1) copies a node_modules of thousands of files several times faster than fs.cp.
    const copy = spawnSync('cp', ['-a', await installed(fixture, manifest), path.join(dir, 'node_modules')], { encoding: 'utf8' });
    if (copy.status !== 0) throw new Error(`cp -a of ${fixture}'s node_modules failed: ${copy.stderr}`);
  }
  return dir;
}
