import { constants, lstatSync, mkdirSync, openSync, closeSync, writeSync, readFileSync, rmSync, symlinkSync, chmodSync, fchmodSync } from 'node:fs';
import path from 'node:path';
import { RedlineError } from '../errors/redline-error.js';

/** What a write inside a root does when it meets a symlink or a file where a directory should be. */
export type OnObstacle = 'replace' | 'refuse';

/** A write or removal inside a root would have left it (or was refused); nothing was written. */
export class EscapeError extends RedlineError {
  readonly file: string;

  constructor(file: string, message: string) {
    super({ code: 'workspace.escape', message });
    this.name = 'EscapeError';
    this.file = file;
  }
}

function kind(target: string): 'missing' | 'dir' | 'symlink' | 'other' {
  const info = lstatSync(target, { throwIfNoEntry: false });
  if (info === undefined) return 'missing';
  return info.isDirectory() ? 'dir' : info.isSymbolicLink() ? 'symlink' : 'other';
}

/**
 * Makes sure every directory above `file` inside `root` is a real directory, creating missing ones.
 * Never follows a symlink: with `replace` (redline's own copies) an obstacle is removed first, with
 * `refuse` (a user's directory) it throws {@link EscapeError}.
 */
function ensureParents(root: string, file: string, onObstacle: OnObstacle): void {
  const parts = file.split('/');
  let current = root;
  for (let index = 0; index < parts.length - 1; index += 1) {
    current = path.join(current, parts[index] as string);
    const found = kind(current);
    if (found === 'dir') continue;
    if (found !== 'missing') {
      if (onObstacle === 'refuse') throw new EscapeError(file, `${file}: ${path.relative(root, current)} is ${found === 'symlink' ? 'a symlink' : 'not a directory'}; nothing is written through it`);
      rmSync(current, { force: true, recursive: true });
    }
    mkdirSync(current, { mode: 0o755 });
  }
}

/**
 * Writes `content` to `root/file` without following a symlink anywhere on the way: the parents are
 * checked one by one and the file is opened with O_NOFOLLOW. `root` itself must be trusted.
 */
export function writeInside(root: string, file: string, content: Uint8Array | string, { mode, onObstacle = 'refuse' }: { mode?: number; onObstacle?: OnObstacle } = {}): void {
  ensureParents(root, file, onObstacle);
  const target = path.join(root, file);
  const found = kind(target);
  if (found === 'dir' || found === 'symlink') {
    if (onObstacle === 'refuse') throw new EscapeError(file, `${file} is ${found === 'dir' ? 'a directory' : 'a symlink'}; nothing is written to it`);
    rmSync(target, { force: true, recursive: true });
  }
  const fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, mode ?? 0o644);
  try {
    if (mode !== undefined) fchmodSync(fd, mode);
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  } finally {
    closeSync(fd);
  }
}

/** Removes `root/file` (a directory with its content, a symlink itself, never its target). */
export function removeInside(root: string, file: string, { onObstacle = 'refuse' }: { onObstacle?: OnObstacle } = {}): void {
  const parts = file.split('/');
  let current = root;
  for (let index = 0; index < parts.length - 1; index += 1) {
    current = path.join(current, parts[index] as string);
    const found = kind(current);
    // Nothing below a missing directory or a non-directory exists inside the root.
    if (found === 'missing' || found === 'other') return;
    if (found === 'symlink') {
      if (onObstacle === 'refuse') throw new EscapeError(file, `${file}: ${path.relative(root, current)} is a symlink; nothing is deleted through it`);
      return;
    }
  }
  rmSync(path.join(root, file), { force: true, recursive: true });
}

/** Creates the directory `root/file` (replacing whatever non-directory is there) with `mode`. */
export function mkdirInside(root: string, file: string, mode: number): void {
  ensureParents(root, file, 'replace');
  const target = path.join(root, file);
  const found = kind(target);
  if (found !== 'dir') {
    if (found !== 'missing') rmSync(target, { force: true, recursive: true });
    mkdirSync(target, { mode });
  }
  chmodSync(target, mode);
}

/** Creates the symlink `root/file` → `target` (replacing whatever is there). The link is never followed. */
export function symlinkInside(root: string, file: string, target: string): void {
  ensureParents(root, file, 'replace');
  const at = path.join(root, file);
  if (kind(at) !== 'missing') rmSync(at, { force: true, recursive: true });
  symlinkSync(target, at);
}

/** The bytes of a regular file, read without following a symlink at the last component. */
export function readNoFollow(target: string): Buffer {
  const fd = openSync(target, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
