import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Readies python3 for tests whose checks run it, and returns their `skip`: false, or why python3 is missing.
 *
 * Puts the directory of the interpreter `python3` resolves to first on this process's PATH (its children
 * inherit it), so a check's `python3` starts that interpreter itself rather than a version manager's shim:
 * pyenv's shim costs ~0.5 s of CPU per start, several times the check it runs, and a study runs dozens.
 * The checks still find `python3` through PATH, and it is the same interpreter.
 */
export function readyPython3(): false | string {
  const probe = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  if (probe.status !== 0) return 'python3 is not installed: the study runs its checks with python3';
  const dir = path.dirname(probe.stdout.trim());
  if (existsSync(path.join(dir, 'python3'))) process.env.PATH = [dir, process.env.PATH].filter(Boolean).join(path.delimiter);
  return false;
}
