import { rmSync } from 'node:fs';
import { lstat, mkdtemp, mkdir, readFile, readdir, readlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Every directory {@link tempWorkspace} made in this test process: removed when it exits, whether its tests passed or not. */
const made = new Set<string>();
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * Creates an empty temporary directory named `prefix<pid>-XXXXXX`, removed when the test process exits; a
 * process killed first leaves it to scripts/sweep-test-leftovers.mjs, which the pid tells whose it was.
 */
export async function tempDir(prefix = 'redline-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `${prefix}${process.pid}-`));
  made.add(dir);
  return dir;
}

/** Creates a temporary directory holding `files` (path → content), removed when the test process exits. */
export async function tempWorkspace(files: Record<string, string>): Promise<string> {
  const dir = await tempDir();
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
  }
  return dir;
}

/** Every file under `dir` with its content, to prove a run left a workspace untouched. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    result[path.relative(dir, full)] = await readFile(full, 'utf8');
  }
  return result;
}

/** Every entry under `dir` (files with content and mode, symlinks with target, directories), symlinks never followed. */
export async function tree(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const walk = async (relative: string): Promise<void> => {
    for (const name of (await readdir(path.join(dir, relative))).sort()) {
      const file = relative === '' ? name : `${relative}/${name}`;
      const info = await lstat(path.join(dir, file));
      if (info.isSymbolicLink()) result[file] = `link ${await readlink(path.join(dir, file))}`;
      else if (info.isDirectory()) {
        result[file] = `dir ${(info.mode & 0o7777).toString(8)}`;
        await walk(file);
      } else result[file] = `file ${(info.mode & 0o7777).toString(8)} ${(await readFile(path.join(dir, file))).toString('base64')}`;
    }
  };
  await walk('');
  return result;
}
