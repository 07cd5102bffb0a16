import { lstatSync, readFileSync, type Stats } from 'node:fs';

/**
 * What `lstat` says of a path, enough to tell that it was not touched: a write, a chmod, a rename or a
 * replacement changes the inode, the size, the modification time or the change time (which no program
 * can set back).
 */
export interface Stamp {
  readonly kind: 'file' | 'dir' | 'symlink' | 'other';
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly mode: number;
}

export function stampOf(info: Stats): Stamp {
  const kind = info.isFile() ? 'file' : info.isDirectory() ? 'dir' : info.isSymbolicLink() ? 'symlink' : 'other';
  return { kind, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, mode: info.mode & 0o7777 };
}

/** `lstat` of a path, or undefined when nothing is there (also when a parent is gone or is no directory). */
export function lstatOrNothing(target: string): Stats | undefined {
  try {
    return lstatSync(target, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'ELOOP' || code === 'ENAMETOOLONG') return undefined;
    throw error;
  }
}

/**
 * The process's file mode creation mask, which strips bits from every mode redline creates files with:
 * where it would, the mode is set explicitly. Read once per copy, from /proc where it can be (reading it
 * through `process.umask` means setting it for a moment).
 */
export function processUmask(): number {
  try {
    const line = /^Umask:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (line !== undefined) return Number.parseInt(line, 8);
  } catch {
    // No /proc: ask the process.
  }
  const mask = process.umask(0o022);
  process.umask(mask);
  return mask;
}

export function sameStamp(a: Stamp, b: Stamp): boolean {
  return (
    a.kind === b.kind && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.mode === b.mode
  );
}

/**
 * Whether a stamp could be shared by a write that came after it: its times are not before `settled`,
 * the file system's clock when the copy was last settled (timestamps advance by ticks, or by whole
 * seconds on some file systems). Such paths are compared by content.
 */
export function isRacy(stamp: Stamp, settled: number): boolean {
  return Math.max(stamp.mtimeMs, stamp.ctimeMs) >= settled;
}
