import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What one path of a tree holds, read with `lstat` (a symlink is never followed). */
export type Entry =
  | { readonly type: 'file'; readonly mode: number; readonly content: Buffer }
  | { readonly type: 'dir'; readonly mode: number }
  | { readonly type: 'symlink'; readonly target: string };

/** A whole tree: relative POSIX path → entry. The root is not listed. */
export type Tree = Map<string, Entry>;

/**
 * Every entry under `dir`, read independently of the code under test: `readdir` + `lstat` at every level,
 * symlinks read with `readlink` and never followed, sockets and the like reported as an error.
 */
export function readTree(dir: string): Tree {
  const tree: Tree = new Map();
  const walk = (relative: string): void => {
    for (const name of readdirSync(relative === '' ? dir : path.join(dir, relative)).sort()) {
      const file = relative === '' ? name : `${relative}/${name}`;
      const full = path.join(dir, file);
      const info = lstatSync(full);
      if (info.isSymbolicLink()) tree.set(file, { type: 'symlink', target: readlinkSync(full) });
      else if (info.isDirectory()) {
        tree.set(file, { type: 'dir', mode: info.mode & 0o7777 });
        walk(file);
      } else if (info.isFile()) tree.set(file, { type: 'file', mode: info.mode & 0o7777, content: readFileSync(full) });
      else throw new Error(`${full} is neither a file, a directory nor a symlink`);
    }
  };
  walk('');
  return tree;
}

/** Writes `tree` into the existing directory `dir`, parents first, with exact modes (the umask does not apply). */
export function writeTree(dir: string, tree: Tree): void {
  const files = [...tree.keys()].sort();
  for (const file of files) {
    const entry = tree.get(file) as Entry;
    const full = path.join(dir, file);
    if (entry.type === 'dir') mkdirSync(full);
    else if (entry.type === 'symlink') symlinkSync(entry.target, full);
    else {
      writeFileSync(full, entry.content);
      chmodSync(full, entry.mode);
    }
  }
  // Directory modes last and deepest first, so that a read-only directory is filled before it is closed.
  for (const file of files.reverse()) {
    const entry = tree.get(file) as Entry;
    if (entry.type === 'dir') chmodSync(path.join(dir, file), entry.mode);
  }
}

function describe(entry: Entry | undefined): string {
  if (entry === undefined) return 'nothing';
  if (entry.type === 'symlink') return `symlink → ${JSON.stringify(entry.target)}`;
  if (entry.type === 'dir') return `dir ${entry.mode.toString(8)}`;
  const preview = entry.content.length <= 24 ? JSON.stringify(entry.content.toString('latin1')) : `${entry.content.length} bytes`;
  return `file ${entry.mode.toString(8)} ${preview}`;
}

function same(a: Entry, b: Entry): boolean {
  if (a.type === 'file' && b.type === 'file') return a.mode === b.mode && a.content.equals(b.content);
  if (a.type === 'dir' && b.type === 'dir') return a.mode === b.mode;
  if (a.type === 'symlink' && b.type === 'symlink') return a.target === b.target;
  return false;
}

/** Where `actual` differs from `expected`, one line per path ("path: expected X, found Y"); empty when equal. */
export function treeDifferences(expected: Tree, actual: Tree): string[] {
  const lines: string[] = [];
  for (const file of [...new Set([...expected.keys(), ...actual.keys()])].sort()) {
    const want = expected.get(file);
    const found = actual.get(file);
    if (want !== undefined && found !== undefined && same(want, found)) continue;
    lines.push(`${file}: expected ${describe(want)}, found ${describe(found)}`);
  }
  return lines;
}

/** The tree without the paths `ignored` says the snapshot leaves out (an ignored directory goes whole). */
export function withoutIgnored(tree: Tree, ignored: (file: string) => boolean): Tree {
  return new Map([...tree].filter(([file]) => !ignored(file)));
}

/** `.git` and `.redline` at any depth: the always-ignored set, restated here independently of src. */
export function alwaysIgnored(file: string): boolean {
  return file.split('/').some((part) => part === '.git' || part === '.redline');
}

/**
 * What a copy of `original` must hold for `candidate`: the snapshot (original minus ignored paths), minus
 * the deleted files, plus the proposed files (a snapshot file keeps its mode, a new one is 0644) and the
 * new directories they need (0755).
 */
export function expectedCopy(
  original: Tree,
  candidate: Readonly<Record<string, string | null>>,
  ignored: (file: string) => boolean = alwaysIgnored,
): Tree {
  const tree = withoutIgnored(original, ignored);
  for (const [file, content] of Object.entries(candidate)) if (content === null) tree.delete(file);
  for (const [file, content] of Object.entries(candidate)) {
    if (content === null) continue;
    const parts = file.split('/');
    for (let end = 1; end < parts.length; end += 1) {
      const ancestor = parts.slice(0, end).join('/');
      if (!tree.has(ancestor)) tree.set(ancestor, { type: 'dir', mode: 0o755 });
    }
    const before = original.get(file);
    tree.set(file, { type: 'file', mode: before?.type === 'file' ? before.mode : 0o644, content: Buffer.from(content, 'utf8') });
  }
  return tree;
}

/** A new temporary directory (mode 0755, like a project directory) and its removal. */
export function tempBase(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `redline-${prefix}-`));
  chmodSync(dir, 0o755);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A file entry with `content` (text) and `mode`. */
export const file = (content: string, mode = 0o644): Entry => ({ type: 'file', mode, content: Buffer.from(content) });

/** A directory entry of mode 0755. */
export const dir: Entry = { type: 'dir', mode: 0o755 };
