import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { newProcessTag, PROCESS_TAG_PREFIX, taggedEnv } from '../../src/process/process-tag.js';
import { canFindTagged, findTagged, killTagged } from '../../src/process/tagged-processes.js';
import { ends, eventually, isRunning } from './liveness.js';
import { tempDir } from '../helpers/workspace.js';

function start(script: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn('sh', ['-c', script], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
}

async function firstLine(child: ChildProcess): Promise<string> {
  let text = '';
  for await (const chunk of child.stdout!) {
    text += String(chunk);
    if (text.includes('\n')) return text.split('\n')[0] as string;
  }
  return text;
}

function state(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

describe('process tags', () => {
  it('are unique environment variable names', () => {
    const tag = newProcessTag();
    assert.match(tag, new RegExp(`^${PROCESS_TAG_PREFIX}[0-9a-f]{32}$`));
    assert.notEqual(tag, newProcessTag());
  });

  it('add up with the tags redline itself was started with, even over an explicit env', () => {
    const outer = newProcessTag();
    process.env[outer] = '1';
    try {
      const tag = newProcessTag();
      assert.deepEqual(taggedEnv({ PATH: '/bin' }, tag), { [tag]: '1', [outer]: '1', PATH: '/bin' });
    } finally {
      delete process.env[outer];
    }
  });
});

describe('findTagged and killTagged on this machine', { skip: canFindTagged() ? false : 'no /proc/<pid>/environ on this system' }, () => {
  it('find and kill only the processes carrying the tag as a variable name', async () => {
    const tag = newProcessTag();
    // Each shell says it runs (with its environment) before it becomes `sleep`.
    const tagged = start('echo up; exec sleep 40', { [tag]: '1' });
    const inValue = start('echo up; exec sleep 40', { OTHER: `${tag}=1` });
    const untagged = start('echo up; exec sleep 40', {});
    try {
      await Promise.all([tagged, inValue, untagged].map(firstLine));
      assert.deepEqual(findTagged(tag), [tagged.pid]);
      assert.equal(killTagged(tag), 1);
      assert.ok(await ends(tagged.pid as number));
      assert.ok(isRunning(inValue.pid as number) && isRunning(untagged.pid as number));
    } finally {
      for (const child of [tagged, inValue, untagged]) child.kill('SIGKILL');
    }
  });

  it('skip zombies and kill their parent without throwing', async () => {
    const tag = newProcessTag();
    // sh starts a child, then becomes `sleep`, which never reaps it. The child exits only once its parent
    // is `sleep`: had it exited at once, the shell could have reaped it before the exec.
    const parent = start('(while read comm < /proc/$$/comm && [ "$comm" != sleep ]; do :; done) & echo $!; exec sleep 40', { [tag]: '1' });
    try {
      const zombie = Number(await firstLine(parent));
      assert.ok(await eventually(() => state(zombie) === 'Z'));
      assert.deepEqual(findTagged(tag), [parent.pid]);
      assert.equal(killTagged(tag), 1);
      assert.ok(await ends(parent.pid as number));
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('catches the children a process forks between scans', async () => {
    const tag = newProcessTag();
    const forker = start('while :; do sleep 40 & done', { [tag]: '1' });
    try {
      assert.ok(await eventually(() => findTagged(tag).length > 1), 'the forker forked');
      assert.ok(killTagged(tag) > 1);
      // SIGKILL takes a moment to land; a child forked after the last scan would never end.
      assert.ok(await eventually(() => findTagged(tag).length === 0), `left running: ${findTagged(tag).join(', ')}`);
    } finally {
      forker.kill('SIGKILL');
    }
  });
});

describe('findTagged over an unreadable /proc', () => {
  it('skips entries it cannot read, and never lists this process', async () => {
    const root = await tempDir('redline-proc-');
    try {
      const tag = newProcessTag();
      await mkdir(path.join(root, '11', 'environ'), { recursive: true });
      await mkdir(path.join(root, '12'));
      await mkdir(path.join(root, 'self'));
      await mkdir(path.join(root, '13'));
      await writeFile(path.join(root, '13', 'environ'), `${tag}=1\0HOME=/root\0`);
      await mkdir(path.join(root, '14'));
      await writeFile(path.join(root, '14', 'environ'), `HOME=/root\0${tag}=1`);
      await mkdir(path.join(root, String(process.pid)));
      await writeFile(path.join(root, String(process.pid), 'environ'), `${tag}=1\0`);
      assert.deepEqual(findTagged(tag, root).sort(), [13, 14]);
      assert.equal(canFindTagged(root), false);
      assert.deepEqual(findTagged(tag, path.join(root, 'missing')), []);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
