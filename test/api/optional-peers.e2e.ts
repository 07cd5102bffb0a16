import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MissingPeerError } from '../../src/index.js';
import { tempDir } from '../helpers/workspace.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/redline.js');
const HIDE = path.join(ROOT, 'test/api/hide-peers.mjs');

/** Runs node (the built CLI or a script) in `cwd` as an install without `pg` and `vega` would. */
function withoutPeers(args: readonly string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, ['--import', pathToFileURL(HIDE).href, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, REDLINE_TEST_HIDE: 'pg,vega' },
  });
  return { status, stdout, stderr };
}

async function inTempDir(work: (dir: string) => Promise<void>): Promise<void> {
  const dir = await tempDir('redline-peers-');
  try {
    await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// `pg` and `vega` are optional peer dependencies: an install without them (`npm i redline-loop`) must work
// with the embedded SQLite default, and say what to install when asked for what needs them.
describe('optional peers (pg, vega) missing', () => {
  it('the root entry and a SQLite ledger work: neither is loaded', () =>
    inTempDir(async (dir) => {
      const script = `
        const redline = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/index.js')).href)});
        const ledger = await redline.openLedger('ledger.db');
        await ledger.append({ runId: 'r', seq: 0, type: 'run.started', at: 1, data: { mission: { id: 'm', taskType: 't' } } });
        const result = await redline.verifyLedger(ledger);
        await ledger.close();
        const queue = await redline.openReviewQueue('ledger.db');
        await queue.close();
        console.log(JSON.stringify(result.ok));`;
      const run = withoutPeers(['--input-type=module', '-e', script], dir);
      assert.equal(run.stderr, '');
      assert.deepEqual([run.status, run.stdout], [0, 'true\n']);
    }));

  it('a postgres:// ledger says to install pg, in one line, exit 2', () =>
    inTempDir(async (dir) => {
      const run = withoutPeers([BIN, 'ledger', 'verify', '--ledger', 'postgres://postgres@127.0.0.1:5432/test'], dir);
      assert.deepEqual(
        [run.status, run.stderr],
        [2, 'redline: install pg to use a postgres:// ledger (npm i pg): it is an optional peer dependency of redline-loop\n'],
      );
    }));

  it("the studies' figures say to install vega, in one line, exit 2", () =>
    inTempDir(async (dir) => {
      const run = withoutPeers([BIN, 'study', 'handoff', '--minutes', '5', '--out', path.join(dir, 'figures')], dir);
      assert.deepEqual(
        [run.status, run.stderr],
        [2, "redline: install vega to draw the study's SVG figures (npm i vega): it is an optional peer dependency of redline-loop\n"],
      );
    }));

  it('a bundled mission runs to its documented end with every optional peer missing', () =>
    inTempDir(async (dir) => {
      const every = 'pg,vega,ai,@ai-sdk/openai-compatible,@opentelemetry/api,@modelcontextprotocol/sdk,pg-boss';
      const { status, stdout, stderr } = spawnSync(
        process.execPath,
        [
          '--import',
          pathToFileURL(HIDE).href,
          BIN,
          'run',
          path.join(ROOT, 'examples/is-even/mission.yaml'),
          '--ledger',
          path.join(dir, 'ledger.db'),
          '--json',
        ],
        { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, REDLINE_TEST_HIDE: every } },
      );
      assert.equal(status, 0, stderr);
      assert.deepEqual(
        (({ outcome, verification }) => ({ outcome, verification }))(
          JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as object & Record<string, unknown>,
        ),
        { outcome: 'complete', verification: 'verified' },
      );
    }));

  it('MissingPeerError.load names the package, and rethrows any other failure as it is', async () => {
    const peer = { packageName: 'pg', purpose: 'use a postgres:// ledger' };
    const notFound = (name: string) =>
      Object.assign(new Error(`Cannot find package '${name}' imported from file:///x.js`), { code: 'ERR_MODULE_NOT_FOUND' });
    await assert.rejects(
      MissingPeerError.load(() => Promise.reject(notFound('pg')), peer),
      (error: unknown) => {
        assert.ok(error instanceof MissingPeerError);
        assert.deepEqual([error.code, error.packageName, error.purpose], ['dependency.missing', 'pg', 'use a postgres:// ledger']);
        return true;
      },
    );
    const other = notFound('pg-types');
    await assert.rejects(
      MissingPeerError.load(() => Promise.reject(other), peer),
      (error: unknown) => error === other,
    );
    const broken = new SyntaxError('Unexpected token');
    await assert.rejects(
      MissingPeerError.load(() => Promise.reject(broken), peer),
      (error: unknown) => error === broken,
    );
    assert.equal(await MissingPeerError.load(async () => 42, peer), 42);
  });
});
