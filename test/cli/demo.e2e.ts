import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempWorkspace } from '../helpers/workspace.js';
import { spawnRedline } from './redline.js';

// The README's quick start: `npx redline demo` runs every bundled mission through the built CLI.
describe('redline demo', () => {
  it('runs every bundled mission as documented and exits 0, with every outcome and verification', async () => {
    const dir = await tempWorkspace({});
    try {
      const { code, stdout, stderr } = spawnRedline(['demo', '--json', '--ledger', path.join(dir, 'demo.db')], {
        timeout: 240_000,
      });
      assert.equal(code, 0, stderr);
      const runs = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { outcome: string; verification: string });
      assert.deepEqual(new Set(runs.map((run) => run.outcome)), new Set(['complete', 'complete_noop', 'blocked', 'failed_with_evidence']));
      assert.deepEqual(new Set(runs.map((run) => run.verification)), new Set(['verified', 'sampled', 'unverified']));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
