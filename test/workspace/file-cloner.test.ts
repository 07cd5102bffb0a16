import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statfsSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BlobPack } from '../../src/workspace/blob-pack.js';
import { FileCloner } from '../../src/workspace/file-cloner.js';
import { ignoreRule } from '../../src/workspace/ignore.js';
import { contentHash } from '../../src/workspace/manifest.js';
import { confirmedClone, takeSnapshot } from '../../src/workspace/snapshot.js';
import { WorkCopy } from '../../src/workspace/work-copy.js';
import { redline } from '../cli/redline.js';
import { tempBase } from './tree.js';

const MKFS_XFS = ['/usr/sbin/mkfs.xfs', '/sbin/mkfs.xfs'].find((tool) => existsSync(tool));

/** Unmounts `mount`, lazily when it is still busy: a failed test leaves no mount behind. */
function unmount(mount: string): void {
  try {
    execFileSync('umount', [mount], { stdio: 'pipe' });
  } catch {
    execFileSync('umount', ['-l', mount], { stdio: 'pipe' });
  }
}

/** Runs `body` in a folder on a small XFS file system with reflinks (a loop mount), or skips where this machine cannot mount one. */
async function onXfs(t: TestContext, body: (dir: string) => Promise<void>): Promise<void> {
  if (process.getuid?.() !== 0 || MKFS_XFS === undefined) return t.skip('needs root and mkfs.xfs (xfsprogs) for a loop-mounted XFS');
  const { dir: base, remove } = tempBase(`xfs-${process.pid}`);
  try {
    const image = path.join(base, 'xfs.img');
    const mount = path.join(base, 'mnt');
    // 300 MiB: XFS's smallest with reflinks and its log.
    closeSync(openSync(image, 'w'));
    execFileSync('truncate', ['-s', '300M', image]);
    execFileSync(MKFS_XFS, ['-q', '-m', 'reflink=1', image]);
    mkdirSync(mount);
    try {
      execFileSync('mount', ['-o', 'loop', image, mount], { stdio: 'pipe' });
    } catch (error) {
      return t.skip(`no loop mount here: ${String((error as Error).message).split('\n')[0]}`);
    }
    try {
      await body(mount);
    } finally {
      unmount(mount);
    }
  } finally {
    remove();
  }
}

/** Whether every extent of `file` shares its blocks with another file (filefrag's `shared` flag). */
function shared(file: string): boolean {
  const extents = execFileSync('filefrag', ['-v', file], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => /^\s*\d+:/.test(line));
  return extents.length > 0 && extents.every((line) => line.includes('shared'));
}

/** A workspace with a large file (filling the snapshot's 1 MiB read buffer and more), a small one and a folder. */
function layWorkspace(ws: string): Buffer {
  const large = randomBytes(3 * 1024 * 1024 + 17);
  mkdirSync(path.join(ws, 'assets'), { recursive: true });
  writeFileSync(path.join(ws, 'assets/large.bin'), large);
  chmodSync(path.join(ws, 'assets/large.bin'), 0o640);
  writeFileSync(path.join(ws, 'small.txt'), 'small');
  return large;
}

/**
 * The first snapshot of a laid workspace in `dir`, with its copy written (`check`), handed to `body`. The
 * workspace's stamps are made older than the walk's start (a stamp no later write can share) unless
 * `prepare` does something else to it.
 */
async function withFirstCopy(
  dir: string,
  body: (taken: Awaited<ReturnType<typeof takeSnapshot>>, laid: { large: Buffer; check: string }) => Promise<void> | void,
  prepare: (ws: string) => Promise<void> | void = () => sleep(30),
): Promise<void> {
  const ws = path.join(dir, 'ws');
  const runDir = path.join(dir, 'run');
  mkdirSync(runDir);
  const large = layWorkspace(ws);
  await prepare(ws);
  const check = path.join(runDir, 'check');
  const taken = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir, copyDir: check });
  try {
    await body(taken, { large, check });
  } finally {
    taken.snapshot.pack.close();
  }
}

function fstatMode(file: string): number {
  const fd = openSync(file, 'r');
  try {
    return fstatSync(fd).mode & 0o7777;
  } finally {
    closeSync(fd);
  }
}

describe('a large file of the first copy is cloned where the file system shares blocks', () => {
  it('is cloned on XFS with reflinks, exact in bytes and mode, and the pack holds its bytes', (t) =>
    onXfs(t, (dir) =>
      withFirstCopy(dir, (taken, { large, check }) => {
        assert.equal(taken.cloned, 1);
        const copy = path.join(check, 'assets/large.bin');
        assert.equal(shared(copy), true, 'its blocks are the workspace file’s');
        assert.equal(shared(path.join(check, 'small.txt')), false, 'a small file is written');
        assert.deepEqual(readFileSync(copy), large);
        assert.equal(fstatMode(copy), 0o640);
        assert.deepEqual(taken.snapshot.manifest.get('assets/large.bin'), {
          type: 'file',
          mode: 0o640,
          size: large.length,
          hash: contentHash(large),
        });
        assert.deepEqual(taken.snapshot.blob(contentHash(large)), large);
        assert.equal(taken.copyStamps.get('assets/large.bin')?.size, large.length);
      }),
    ));

  it('is written, not cloned, when its stamp is not older than the walk', (t) =>
    onXfs(t, (dir) =>
      withFirstCopy(
        dir,
        (taken, { large, check }) => {
          assert.equal(taken.cloned, 0);
          assert.equal(shared(path.join(check, 'assets/large.bin')), false);
          assert.deepEqual(readFileSync(path.join(check, 'assets/large.bin')), large);
        },
        // A stamp at or after the walk's start could be shared by a later write in the same clock tick.
        (ws) => {
          const future = new Date(Date.now() + 3_600_000);
          utimesSync(path.join(ws, 'assets/large.bin'), future, future);
        },
      ),
    ));

  it('replaces a clone by the bytes read and hashed when the file was rewritten in place (same size) after it was first looked at', (t) =>
    onXfs(t, async (dir) => {
      const source = path.join(dir, 'source.bin');
      const original = randomBytes(2 * 1024 * 1024);
      writeFileSync(source, original);
      chmodSync(source, 0o600);
      const pack = BlobPack.create(path.join(dir, 'blobs.pack'));
      const input = openSync(source, 'r');
      try {
        const before = fstatSync(input);
        // What was read and hashed: the original bytes. The file is rewritten in place before the clone:
        // same size, same mode, only its times tell.
        pack.append(original);
        pack.commit(contentHash(original));
        await sleep(20);
        const rewrite = openSync(source, 'r+');
        writeSync(rewrite, randomBytes(4096), 0, 4096, 0);
        closeSync(rewrite);
        const cloner = new FileCloner(dir);
        const copy = path.join(dir, 'copy.bin');
        assert.equal(cloner.clone(input, copy), true);
        assert.notDeepEqual(readFileSync(copy), original, 'the clone took the rewritten bytes');
        const entry = { type: 'file' as const, mode: 0o600, size: original.length, hash: contentHash(original) };
        const stamp = confirmedClone(input, before, copy, entry, pack, cloner);
        assert.deepEqual(readFileSync(copy), original, 'the copy holds what was hashed');
        assert.equal(stamp.size, original.length);
        assert.equal(fstatMode(copy), 0o600);
        assert.equal(cloner.cloned, 0, 'a discarded clone is not counted');
      } finally {
        closeSync(input);
        pack.close();
      }
    }));

  it('never tries where the file system does not share blocks (tmpfs, ext4): the copy is written, exact', async (t) => {
    const { dir, remove } = tempBase(`no-clone-${process.pid}`);
    try {
      // XFS and btrfs clone; the suite's temp folder is tmpfs or ext4.
      if ([0x58465342, 0x9123683e].includes(statfsSync(dir).type)) return t.skip('this temp folder is on a file system that clones');
      assert.equal(new FileCloner(dir).usable, false);
      await withFirstCopy(dir, (taken, { large, check }) => {
        const copy = path.join(check, 'assets/large.bin');
        assert.equal(taken.cloned, 0);
        assert.deepEqual(readFileSync(copy), large);
        assert.equal(fstatMode(copy), 0o640);
        assert.deepEqual(readdirSync(path.join(check, 'assets')), ['large.bin']);
      });
    } finally {
      remove();
    }
  });
});

describe('a copy written later from the snapshot', () => {
  it('is written from the pack, never cloned from the live workspace (a mapped file can change without its stamp)', (t) =>
    onXfs(t, async (dir) => {
      const ws = path.join(dir, 'ws');
      const runDir = path.join(dir, 'run');
      mkdirSync(runDir);
      const large = layWorkspace(ws);
      await sleep(30);
      const pack = BlobPack.create(path.join(runDir, 'cache.pack'));
      const { snapshot } = await takeSnapshot({ workspace: ws, ignored: ignoreRule(), runDir, pack });
      try {
        const copy = await WorkCopy.materialize(path.join(dir, 'copy'), snapshot);
        assert.deepEqual(readFileSync(path.join(copy.dir, 'assets/large.bin')), large);
        assert.equal(shared(path.join(copy.dir, 'assets/large.bin')), false);
      } finally {
        pack.close();
      }
    }));
});

describe('redline run on a file system that clones', () => {
  it('says in the run story how many large files its fresh copy cloned, and the run verifies', (t) =>
    onXfs(t, async (dir) => {
      const ws = path.join(dir, 'ws');
      layWorkspace(ws);
      writeFileSync(path.join(ws, 'check.js'), "console.log('TAP version 13\\n1..1\\nok 1 - large file there');\n");
      await sleep(30);
      const mission = path.join(dir, 'mission.json');
      writeFileSync(
        mission,
        JSON.stringify({
          id: 'clones',
          goal: 'nothing to change',
          workspace: ws,
          checks: [{ name: 'tests', kind: 'test-runner', format: 'tap', command: 'node check.js' }],
        }),
      );
      const db = path.join(dir, 'ledger.db');
      const cache = path.join(dir, 'cache');
      const run = await redline(['run', mission, '--proposer', 'true', '--ledger', db, '--no-review', '--cache-dir', cache, '--json']);
      assert.equal(run.code, 0, run.stderr);
      const { runId, outcome } = JSON.parse(run.stdout.trim()) as { runId: string; outcome: string };
      assert.equal(outcome, 'complete_noop');
      const show = await redline(['ledger', 'show', runId, '--ledger', db]);
      assert.match(show.stdout, /^ {2}snapshot .*: 4 entries, 3 hashed, fresh copy, 1 large file cloned, taken in \d+ ms$/m);
      const [entry] = readdirSync(cache).filter((name) => !name.startsWith('.'));
      assert.equal(shared(path.join(cache, entry as string, 'copy/assets/large.bin')), true);
    }));
});
