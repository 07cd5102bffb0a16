import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { AdmitError, admitRun } from '../../src/analysis/admit.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { layOut, recordRun, type Layout } from './admit-runs.js';
import { tempDir } from '../helpers/workspace.js';

// Real repositories, with no global or system git configuration: identities come from each repository.
before(async () => {
  const home = await tempDir('redline-git-home-');
  await writeFile(path.join(home, 'gitconfig'), '');
  process.env.GIT_CONFIG_GLOBAL = path.join(home, 'gitconfig');
  process.env.GIT_CONFIG_NOSYSTEM = '1';
  for (const name of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'EMAIL'])
    delete process.env[name];
});

function git(dir: string, ...args: string[]): string {
  const result = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
  assert.equal(result.status, 0, `git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** A repository with `layout` committed, by `Tester <tester@example.com>` unless `identity` is false. */
async function repository(layout: Layout, { identity = true }: { identity?: boolean } = {}): Promise<string> {
  const dir = await tempDir('redline-repo-');
  git(dir, 'init', '--quiet', '--initial-branch', 'main');
  await layOut(dir, layout);
  git(dir, 'add', '--all');
  git(dir, '-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', 'commit', '--quiet', '-m', 'initial');
  if (identity) {
    git(dir, 'config', 'user.name', 'Tester');
    git(dir, 'config', 'user.email', 'tester@example.com');
  }
  return dir;
}

/** Path → "mode blob-content" of a commit's whole tree. */
function treeAt(dir: string, commit: string): Record<string, string> {
  const tree: Record<string, string> = {};
  for (const entry of git(dir, 'ls-tree', '-r', '-z', commit).split('\0').filter(Boolean)) {
    const [meta, file] = entry.split('\t') as [string, string];
    const [mode, , oid] = meta.split(' ') as [string, string, string];
    tree[file] = `${mode} ${git(dir, 'cat-file', 'blob', oid)}`;
  }
  return tree;
}

/** What must not change: the working tree's status, the real index's bytes, HEAD and the checked-out branch. */
async function untouched(dir: string): Promise<string> {
  return JSON.stringify([
    git(dir, 'status', '--porcelain', '--untracked-files=all'),
    (await readFile(path.join(dir, '.git/index'))).toString('hex'),
    git(dir, 'rev-parse', 'HEAD'),
    git(dir, 'symbolic-ref', 'HEAD'),
  ]);
}

const BASE = { 'src/app.js': 'app v1\n', 'src/old.js': 'old\n', 'run.sh': '#!/bin/sh\n', 'README.md': 'readme\n' };

describe('admitRun --git-branch', () => {
  it('commits the candidate on HEAD to a new branch without touching the working tree or the real index', async () => {
    const dir = await repository(BASE);
    await chmod(path.join(dir, 'run.sh'), 0o755);
    git(dir, 'add', 'run.sh');
    git(dir, 'commit', '--quiet', '-m', 'executable');
    // A dirty working tree: a modified file, a staged change and an untracked file.
    await writeFile(path.join(dir, 'README.md'), 'local edit\n');
    await writeFile(path.join(dir, 'src/app.js'), 'staged\n');
    git(dir, 'add', 'src/app.js');
    await writeFile(path.join(dir, 'scratch.txt'), 'untracked\n');
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const state = await untouched(dir);

    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, {
      files: {
        'src/app.js': 'app v2\n',
        'src/old.js': null,
        'run.sh': '#!/bin/sh\necho v2\n',
        'docs/new file.md': 'new\n',
        'README.md': 'readme\n',
      },
      baseline: BASE,
      workspaceDir: dir,
    });
    const admission = await admitRun({ ledger, runId, gitBranch: 'redline/admit-1' });
    assert.equal(await untouched(dir), state);
    assert.deepEqual(
      [admission.mode, admission.written, admission.deleted, admission.unchanged],
      ['git-branch', ['docs/new file.md', 'run.sh', 'src/app.js'], ['src/old.js'], ['README.md']],
    );
    const commit = git(dir, 'rev-parse', 'refs/heads/redline/admit-1').trim();
    assert.deepEqual(admission.branch, {
      branch: 'redline/admit-1',
      commit,
      tree: git(dir, 'rev-parse', `${commit}^{tree}`).trim(),
      parent: head,
    });
    assert.equal(git(dir, 'rev-parse', `${commit}^`).trim(), head);
    assert.deepEqual(treeAt(dir, commit), {
      'README.md': '100644 readme\n',
      'docs/new file.md': '100644 new\n',
      'run.sh': '100755 #!/bin/sh\necho v2\n',
      'src/app.js': '100644 app v2\n',
    });
    assert.equal(
      git(dir, 'log', '-1', '--format=%an <%ae>%n%B', commit),
      `Tester <tester@example.com>\nredline: admit run ${runId}\n\nmission: admit-test\ngoal: make the change\n\n`,
    );
  });

  it('refuses a branch that exists and an invalid branch name, creating nothing', async () => {
    const dir = await repository(BASE);
    git(dir, 'branch', 'taken');
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, { files: { 'src/app.js': 'app v2\n' }, baseline: BASE });
    const refs = git(dir, 'show-ref');
    for (const [gitBranch, code] of [
      ['taken', 'admit.branch_exists'],
      ['bad..name', 'admit.bad_branch'],
      ['-x', 'admit.bad_branch'],
      ['@{-1}', 'admit.bad_branch'],
    ] as const) {
      const error: unknown = await admitRun({ ledger, runId, dir, gitBranch }).catch((thrown: unknown) => thrown);
      assert.ok(error instanceof AdmitError && error.code === code, `${gitBranch}: ${String(error)}`);
    }
    assert.equal(git(dir, 'show-ref'), refs);
  });

  it("checks conflicts against HEAD's files, not the working tree, and admits over them with force", async () => {
    const dir = await repository({ ...BASE, 'src/app.js': 'committed after the run started\n' });
    // An uncommitted edit to a path the run does not touch differs from nothing the branch commits.
    await writeFile(path.join(dir, 'README.md'), 'edited since, not committed\n');
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, { files: { 'src/app.js': 'app v2\n', 'src/new.js': 'n\n' }, baseline: BASE });
    const error: unknown = await admitRun({ ledger, runId, dir, gitBranch: 'b' }).catch((thrown: unknown) => thrown);
    assert.ok(error instanceof AdmitError && error.code === 'admit.conflict', String(error));
    assert.deepEqual(error.problems, [{ file: 'src/app.js', reason: 'changed since the run started' }]);
    assert.equal(spawnSync('git', ['show-ref', '--verify', '--quiet', 'refs/heads/b'], { cwd: dir }).status, 1);
    const forced = await admitRun({ ledger, runId, dir, gitBranch: 'b', force: true });
    assert.deepEqual(forced.forced, [{ file: 'src/app.js', change: 'changed' }]);
    assert.equal(git(dir, 'show', 'b:src/app.js'), 'app v2\n');
  });

  it('says when HEAD differs because the run started from uncommitted changes, and commits them with force', async () => {
    const dir = await repository(BASE);
    // Committed after the run started: a change since, as in the test above.
    await writeFile(path.join(dir, 'src/old.js'), 'old v2\n');
    git(dir, 'commit', '--quiet', '-am', 'after the run started');
    // Uncommitted when the run started, and still so: an edit, an untracked file and a deletion.
    const started = { 'src/app.js': 'app v1\nlocal edit\n', 'notes.txt': 'untracked\n', 'src/old.js': 'old\n' };
    await layOut(dir, { 'src/app.js': started['src/app.js'], 'notes.txt': started['notes.txt'] });
    await rm(path.join(dir, 'README.md'));
    const ledger = new MemoryLedger();
    const files = {
      'src/app.js': 'app v2\nlocal edit\n',
      'notes.txt': 'untracked\nmore\n',
      'README.md': 'rewritten\n',
      'src/old.js': 'old v3\n',
    };
    const runId = await recordRun(ledger, { files, baseline: started });
    const error: unknown = await admitRun({ ledger, runId, dir, gitBranch: 'b' }).catch((thrown: unknown) => thrown);
    assert.ok(error instanceof AdmitError && error.code === 'admit.conflict', String(error));
    const uncommitted = 'differs from HEAD: the run started from uncommitted changes to this file';
    assert.deepEqual(error.problems, [
      { file: 'README.md', reason: uncommitted },
      { file: 'notes.txt', reason: uncommitted },
      { file: 'src/app.js', reason: uncommitted },
      { file: 'src/old.js', reason: 'changed since the run started' },
    ]);
    assert.match(
      error.headline,
      /: 4 path\(s\) of HEAD of .* differ from the files the run started from; nothing was written \(--force admits over them, committing the uncommitted changes the run started from\)$/,
    );
    const forced = await admitRun({ ledger, runId, dir, gitBranch: 'b', force: true });
    assert.deepEqual(
      forced.forced.map(({ file, change }) => `${change} ${file}`),
      ['uncommitted README.md', 'uncommitted notes.txt', 'uncommitted src/app.js', 'changed src/old.js'],
    );
    // The commit carries each candidate file whole, the uncommitted edit it started from included.
    const tree = treeAt(dir, forced.branch?.commit as string);
    assert.deepEqual(
      [tree['src/app.js'], tree['notes.txt'], tree['README.md'], tree['src/old.js']],
      ['100644 app v2\nlocal edit\n', '100644 untracked\nmore\n', '100644 rewritten\n', '100644 old v3\n'],
    );
  });

  it('refuses paths that are or go through a symlink in HEAD, and works from a subdirectory of the repository', async () => {
    const dir = await repository({
      'ws/a.txt': 'a\n',
      'ws/link': { symlink: '/etc' },
      'ws/file-link': { symlink: 'a.txt' },
      'other.txt': 'o\n',
    });
    const workspace = path.join(dir, 'ws');
    const ledger = new MemoryLedger();
    const bad = await recordRun(ledger, {
      files: { 'link/passwd': 'x\n', 'file-link': 'x\n', 'a.txt': 'b\n' },
      baseline: { 'a.txt': 'a\n' },
    });
    const error: unknown = await admitRun({ ledger, runId: bad, dir: workspace, gitBranch: 'b' }).catch((thrown: unknown) => thrown);
    assert.ok(error instanceof AdmitError && error.code === 'admit.bad_path', String(error));
    assert.deepEqual(error.problems, [
      { file: 'file-link', reason: 'a symlink in HEAD' },
      { file: 'link/passwd', reason: 'through "link", a symlink in HEAD' },
    ]);
    const good = await recordRun(ledger, { files: { 'a.txt': 'b\n', 'sub/c.txt': 'c\n' }, baseline: { 'a.txt': 'a\n' } });
    const admission = await admitRun({ ledger, runId: good, dir: workspace, gitBranch: 'b' });
    const tree = treeAt(dir, admission.branch?.commit as string);
    assert.deepEqual(
      [tree['ws/a.txt'], tree['ws/sub/c.txt'], tree['other.txt'], tree['ws/link']],
      ['100644 b\n', '100644 c\n', '100644 o\n', '120000 /etc'],
    );
  });

  it('commits as redline <redline@localhost> when git has no identity configured', async () => {
    const dir = await repository(BASE, { identity: false });
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, { files: { 'src/app.js': 'app v2\n' }, baseline: BASE });
    const admission = await admitRun({ ledger, runId, dir, gitBranch: 'b' });
    assert.equal(
      git(dir, 'log', '-1', '--format=%an <%ae> / %cn <%ce>', admission.branch?.commit as string).trim(),
      'redline <redline@localhost> / redline <redline@localhost>',
    );
  });

  it('refuses a directory outside any repository, and a repository without a commit', async () => {
    const ledger = new MemoryLedger();
    const runId = await recordRun(ledger, { files: { 'a.txt': 'x\n' } });
    const plain = await tempDir('redline-plain-');
    process.env.GIT_CEILING_DIRECTORIES = path.dirname(plain);
    try {
      await assert.rejects(admitRun({ ledger, runId, dir: plain, gitBranch: 'b' }), { code: 'git.not_repository' });
      git(plain, 'init', '--quiet');
      await assert.rejects(admitRun({ ledger, runId, dir: plain, gitBranch: 'b' }), { code: 'git.no_head' });
    } finally {
      delete process.env.GIT_CEILING_DIRECTORIES;
    }
  });
});
