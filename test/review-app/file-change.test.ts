import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BASELINE_FILE_BYTES } from '../../src/core/brief-baseline.js';
import type { Brief } from '../../src/core/brief.js';
import type { ReviewItem } from '../../src/review/review-queue.js';
import { diffClassifier } from '../../src/review-app/diff-lines.js';
import { DIFF_LINES, fileChange } from '../../src/review-app/file-change.js';

const itemWith = (finalOutput: Brief['finalOutput']): ReviewItem => ({
  id: 'i',
  runId: 'r',
  task: 't',
  finalOutput,
  cutoffReason: 'c',
  attempts: 1,
  verification: 'unverified',
  priority: 0,
  tags: [],
  enqueuedAt: 0,
});

describe('fileChange', () => {
  it('diffs a changed, a new and a deleted file against the file before the run', () => {
    const item = itemWith({
      files: { 'a.ts': 'one\nTWO\nthree\n', 'new.ts': 'n\n', 'gone.sql': null },
      baseline: { 'a.ts': 'one\ntwo\nthree\n', 'new.ts': null, 'gone.sql': '-- c\n' },
    });
    assert.deepEqual(fileChange(item, 'a.ts'), {
      kind: 'diff',
      before: 'one\ntwo\nthree\n',
      diff: 'diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n',
    });
    assert.match(
      (fileChange(item, 'new.ts') as { diff: string }).diff,
      /new file mode 100644\n--- \/dev\/null\n\+\+\+ b\/new\.ts\n@@ -0,0 \+1 @@\n\+n\n$/,
    );
    assert.match(
      (fileChange(item, 'gone.sql') as { diff: string }).diff,
      /deleted file mode 100644\n--- a\/gone\.sql\n\+\+\+ \/dev\/null\n@@ -1 \+0,0 @@\n--- c\n$/,
    );
  });

  it('shows a file whole, saying why, where the brief has no baseline for it or the diff would be too large', () => {
    const big = 'x'.repeat(BASELINE_FILE_BYTES + 1);
    const item = itemWith({
      files: { 'old.ts': 'a', 'bin.png': 'b', 'big.txt': big, 'long.txt': 'x\n'.repeat(DIFF_LINES + 1), 'same.md': 'same\n' },
      baseline: {
        'old.ts': { omitted: 'brief_full', bytes: 10 },
        'bin.png': { omitted: 'binary', bytes: 1234 },
        'big.txt': null,
        'long.txt': 'x\n',
        'same.md': 'same\n',
      },
    });
    const why = (file: string): string | undefined => {
      const change = fileChange(item, file);
      return change.kind === 'whole' ? change.why : undefined;
    };
    assert.match(why('old.ts') ?? '', /\(10 bytes\) did not fit/);
    assert.equal(why('bin.png'), 'the file before the run (1,234 bytes) is binary');
    assert.equal(why('big.txt'), 'the file is over 256 KiB, too large to diff here');
    assert.equal(why('long.txt'), 'the file is over 5,000 lines before or after the run, too large to diff here');
    assert.match(why('same.md') ?? '', /same as the file before the run/);
    assert.deepEqual(fileChange(itemWith({ files: { 'a.ts': 'x' } }), 'a.ts'), { kind: 'whole' });
    assert.deepEqual(fileChange(item, 'not-a-file'), { kind: 'whole' });
    assert.deepEqual(fileChange(item, '__proto__'), { kind: 'whole' });
  });
});

describe('diffClassifier', () => {
  it('reads hunk lines by the hunk counts, so removed and added lines that look like headers stay changes', () => {
    const lines = [
      'diff --git a/q.sql b/q.sql',
      'index 1..2 100644',
      '--- a/q.sql',
      '+++ b/q.sql',
      '@@ -1,3 +1,3 @@',
      '--- a comment',
      '+++ counter',
      ' kept',
      '-@@ not a hunk',
      '\\ No newline at end of file',
      '+last',
      'trailing prose',
      '+loose',
    ];
    const classOf = diffClassifier();
    assert.deepEqual(lines.map(classOf), [
      'diff-meta',
      'diff-meta',
      'diff-meta',
      'diff-meta',
      'diff-hunk',
      'diff-del',
      'diff-add',
      'diff-context',
      'diff-del',
      'diff-meta',
      'diff-add',
      'diff-context',
      'diff-add',
    ]);
  });
});
