import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { chmod, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { EscapeError } from '../errors/escape-error.js';

/** What a write inside a root does when it meets a symlink or a file where a directory should be. */
export type OnObstacle = 'replace' | 'refuse';

type Kind = 'missing' | 'file' | 'dir' | 'symlink' | 'special';

function kind(target: string): Kind {
  const info = lstatSync(target, { throwIfNoEntry: false });
  if (info === undefined) return 'missing';
  return info.isFile() ? 'file' : info.isDirectory() ? 'dir' : info.isSymbolicLink() ? 'symlink' : 'special';
}

const describe: Readonly<Record<Kind, string>> = {
  missing: 'missing',
  file: 'a file',
  dir: 'a directory',
  symlink: 'a symlink',
  special: 'a FIFO, socket or device',
};

/** Refuses a path that is not a plain, normal relative path below the root (`''`, `.`, `..`, absolute, empty segments). */
function assertBelow(file: string): void {
  const parts = file.split('/');
  if (
    file.length === 0 ||
    path.isAbsolute(file) ||
    parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('\0'))
  ) {
    throw new EscapeError(file, `${JSON.stringify(file)} is not a plain relative path below the root; nothing is written or removed`);
  }
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
      if (onObstacle === 'refuse')
        throw new EscapeError(file, `${file}: ${path.relative(root, current)} is ${describe[found]}; nothing is written through it`);
      rmSync(current, { force: true, recursive: true });
    }
    mkdirSync(current, { mode: 0o755 });
  }
}

/**
 * Writes `content` to `root/file` as a new file, never through a symlink anywhere on the way: the
 * parents are checked one by one, the bytes go to a fresh file opened with O_EXCL | O_NOFOLLOW next to
 * the target, which then replaces the target by a rename. A hard link, FIFO or symlink at the target is
 * replaced, never written through. `root` itself must be trusted. Without `mode`, an existing file keeps its mode.
 */
export function writeInside(
  root: string,
  file: string,
  content: Uint8Array | string,
  options: { mode?: number; onObstacle?: OnObstacle } = {},
): void {
  const { target, temporary, fd } = openAside(root, file, options);
  try {
    try {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      writeAll(fd, bytes);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * {@link writeInside} for content that comes in pieces (a large blob read part by part): each piece is
 * written as it arrives, so only one is in memory. An error thrown by `chunks` (bytes that turn out not
 * to match their hash) leaves nothing at the target.
 */
export async function writeChunksInside(
  root: string,
  file: string,
  chunks: AsyncIterable<Uint8Array>,
  options: { mode?: number; onObstacle?: OnObstacle } = {},
): Promise<void> {
  const { target, temporary, fd } = openAside(root, file, options);
  try {
    try {
      for await (const bytes of chunks) writeAll(fd, bytes);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
}

/** The checks of {@link writeInside}, then a fresh file next to the target (O_EXCL | O_NOFOLLOW) with its mode set exactly. */
function openAside(
  root: string,
  file: string,
  { mode: asked, onObstacle = 'refuse' }: { mode?: number; onObstacle?: OnObstacle },
): { target: string; temporary: string; fd: number } {
  assertBelow(file);
  ensureParents(root, file, onObstacle);
  const target = path.join(root, file);
  const found = kind(target);
  // Without a mode, a file that is replaced keeps its own; a new one gets 0644.
  const mode = asked ?? (found === 'file' ? lstatSync(target).mode & 0o7777 : 0o644);
  if (found === 'dir' || found === 'symlink' || found === 'special') {
    if (onObstacle === 'refuse') throw new EscapeError(file, `${file} is ${describe[found]}; nothing is written to it`);
    rmSync(target, { force: true, recursive: true });
  }
  const temporary = path.join(path.dirname(target), `.${path.basename(target).slice(0, 200)}.redline-${randomBytes(6).toString('hex')}`);
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    // The mode is set exactly, whatever the umask.
    fchmodSync(fd, mode);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  return { target, temporary, fd };
}

/** Removes `root/file` (a directory with its content, a symlink itself, never its target). */
export function removeInside(root: string, file: string, { onObstacle = 'refuse' }: { onObstacle?: OnObstacle } = {}): void {
  assertBelow(file);
  const parts = file.split('/');
  let current = root;
  for (let index = 0; index < parts.length - 1; index += 1) {
    current = path.join(current, parts[index] as string);
    const found = kind(current);
    // Nothing below a missing directory or a non-directory exists inside the root.
    if (found === 'missing' || found === 'file' || found === 'special') return;
    if (found === 'symlink') {
      if (onObstacle === 'refuse')
        throw new EscapeError(file, `${file}: ${path.relative(root, current)} is a symlink; nothing is deleted through it`);
      return;
    }
  }
  const target = path.join(root, file);
  const found = kind(target);
  if (found === 'dir') rmSync(target, { force: true, recursive: true });
  else if (found !== 'missing') unlinkSync(target);
}

/** Creates the directory `root/file` (`''`: the root itself), replacing whatever non-directory is there, with exactly `mode`. */
export function mkdirInside(root: string, file: string, mode: number): void {
  if (file !== '') {
    assertBelow(file);
    ensureParents(root, file, 'replace');
  }
  const target = file === '' ? root : path.join(root, file);
  const found = kind(target);
  if (found !== 'dir') {
    if (found !== 'missing') rmSync(target, { force: true, recursive: true });
    mkdirSync(target, { mode });
  }
  chmodSync(target, mode);
}

/** Creates the symlink `root/file` → `target` (replacing whatever is there). The link is never followed. */
export function symlinkInside(root: string, file: string, target: string): void {
  assertBelow(file);
  ensureParents(root, file, 'replace');
  const at = path.join(root, file);
  if (kind(at) !== 'missing') rmSync(at, { force: true, recursive: true });
  symlinkSync(target, at);
}

/** The bytes of a regular file, read without following a symlink at the last component. */
export function readNoFollow(target: string): Buffer {
  const fd = openSync(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes a directory tree redline made, even where a program left a directory without write
 * permission (which stops removal for anyone but root): on EACCES or EPERM it gives every directory
 * below back its owner's rwx and tries again.
 */
export async function removeTree(target: string): Promise<void> {
  try {
    await rm(target, { recursive: true, force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    const open = async (dir: string): Promise<void> => {
      await chmod(dir, 0o700).catch(() => undefined);
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => []))
        if (entry.isDirectory()) await open(path.join(dir, entry.name));
    };
    await open(target);
    await rm(target, { recursive: true, force: true });
  }
}
