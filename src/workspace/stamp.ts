import { existsSync, lstatSync, readFileSync, type Stats } from 'node:fs';
import path from 'node:path';

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

/**
 * The stamp of what was just written at `target`, which must be of `kind`: anything else was put there by
 * another process meanwhile, and a stamp of it would let later walks trust it.
 */
export function writtenStamp(target: string, kind: Stamp['kind']): Stamp {
  const stamp = stampOf(lstatSync(target));
  if (stamp.kind !== kind) throw new Error(`${target} changed while the copy was written: a ${stamp.kind} where a ${kind} was made`);
  return stamp;
}

/** Whether an `lstat` error means that nothing is there to stamp: a parent is gone or is no directory. */
function isNothing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOTDIR' || code === 'ELOOP' || code === 'ENAMETOOLONG';
}

/** `lstat` of a path, or undefined when nothing is there (also when a parent is gone or is no directory). */
export function lstatOrNothing(target: string): Stats | undefined {
  try {
    return lstatSync(target, { throwIfNoEntry: false });
  } catch (error) {
    if (isNothing(error)) return undefined;
    throw error;
  }
}

/** Node's `lstat` binding as `fs.lstatSync` calls it: the fields in a shared array (valid until the next call), undefined for ENOENT. */
type LstatValues = (target: string) => Float64Array | undefined;

const S_IFMT = 0o170000;
const KIND_BY_TYPE: ReadonlyMap<number, Stamp['kind']> = new Map([
  [0o100000, 'file'],
  [0o040000, 'dir'],
  [0o120000, 'symlink'],
]);

/** A stamp from the binding's fields (mode 1, inode 7, size 8, modification and change time 12–15: seconds and nanoseconds). */
function stampFromValues(values: Float64Array): Stamp {
  const mode = values[1] as number;
  return {
    kind: KIND_BY_TYPE.get(mode & S_IFMT) ?? 'other',
    ino: values[7] as number,
    size: values[8] as number,
    // As `Stats` computes its times, to the same double.
    mtimeMs: (values[12] as number) * 1e3 + (values[13] as number) / 1e6,
    ctimeMs: (values[14] as number) * 1e3 + (values[15] as number) / 1e6,
    mode: mode & 0o7777,
  };
}

/**
 * Node's own `lstat` binding, when it is there and gives, for a file, a folder and a symlink, exactly the
 * stamp `lstatSync` gives: a walk stamps every path, and skipping the `Stats` object (and its four `Date`s)
 * makes each stamp about a quarter cheaper. Undefined (and `lstatSync` used) on any doubt: another Node.js
 * whose binding differs, the permission model, or `--pending-deprecation` (the binding is a deprecated API,
 * which would then warn).
 */
function lstatBinding(): LstatValues | undefined {
  const options = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  if (/--pending[-_]deprecation/.test(options) || process.env.NODE_PENDING_DEPRECATION === '1') return undefined;
  try {
    const binding = (process as unknown as { binding: (name: string) => Record<string, unknown> }).binding('fs');
    const lstat = binding.lstat;
    if (typeof lstat !== 'function') return undefined;
    const values: LstatValues = (target) => lstat.call(binding, target, false, undefined, false) as Float64Array | undefined;
    const samples = [process.execPath, path.dirname(process.execPath), '/proc/self/exe'].filter((file) => existsSync(file));
    for (const file of samples) {
      const got = values(file);
      if (!(got instanceof Float64Array) || !sameStamp(stampFromValues(got), stampOf(lstatSync(file)))) return undefined;
    }
    return values(path.join(path.dirname(process.execPath), '.redline-no-such-entry')) === undefined ? values : undefined;
  } catch {
    return undefined;
  }
}

let binding: LstatValues | undefined | null = null;

/** Whether {@link stampAt} stamps through Node's `lstat` binding here (see lstatBinding). */
export function stampsThroughBinding(): boolean {
  if (binding === null) binding = lstatBinding();
  return binding !== undefined;
}

/** The stamp of a path, or undefined when nothing is there (as {@link lstatOrNothing}); the hot loops' `lstat`. */
export function stampAt(target: string): Stamp | undefined {
  if (binding === null) binding = lstatBinding();
  // A NUL would end the path where the binding reads it; lstatSync refuses such a path, as it should.
  if (binding === undefined || target.includes('\0')) {
    const info = lstatOrNothing(target);
    return info === undefined ? undefined : stampOf(info);
  }
  let values: Float64Array | undefined;
  try {
    values = binding(target);
  } catch (error) {
    if (isNothing(error)) return undefined;
    throw error;
  }
  return values === undefined ? undefined : stampFromValues(values);
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
