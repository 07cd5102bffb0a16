import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';

const base = mkdtempSync(path.join(tmpdir(), 'redline-fold-'));
after(() => rmSync(base, { recursive: true, force: true }));

describe('candidate paths on a file system that folds names', () => {
  it('refuses a path naming another snapshot or candidate path there, and only there', async () => {
    writeFileSync(path.join(base, 'readme.md'), 'a');
    writeFileSync(path.join(base, 'caf\u00e9.txt'), 'b');
    const folding = await RunWorkspace.start({
      runId: 'folding',
      workspace: base,
      scratchDir: path.join(base, 'scratch'),
      _internal: { foldsNames: true },
    });
    const plain = await RunWorkspace.start({
      runId: 'plain',
      workspace: base,
      scratchDir: path.join(base, 'scratch'),
      _internal: { foldsNames: false },
    });
    try {
      const candidate = { 'README.md': 'x', 'cafe\u0301.txt': 'y', 'New.txt': 'z', 'new.txt': 'w', 'other.txt': 'v' };
      assert.deepEqual(folding.candidateProblems(candidate), [
        'a path "README.md" that names "readme.md" on this case-insensitive file system',
        'a path "cafe\u0301.txt" that names "caf\u00e9.txt" on this case-insensitive file system',
        'a path "new.txt" that names "New.txt" on this case-insensitive file system',
      ]);
      assert.deepEqual(plain.candidateProblems(candidate), []);
      assert.deepEqual(folding.candidateProblems({ 'readme.md': 'x' }), []);
    } finally {
      await folding.dispose();
      await plain.dispose();
    }
  });
});
