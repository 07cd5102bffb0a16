import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  cpSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
  type BigIntStats,
} from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { pick } from './arbitraries.js';
import { readTree } from './tree.js';

/** What a messy check does to the copy it runs in. */
export type CheckActionKind =
  | 'create-file'
  | 'create-dir'
  | 'modify-same-size'
  | 'append'
  | 'delete-file'
  | 'delete-dir'
  | 'chmod'
  | 'dir-to-lookalike-symlink'
  | 'file-to-dir'
  | 'file-to-symlink'
  | 'rename'
  | 'retarget-symlink';

export interface CheckAction {
  readonly kind: CheckActionKind;
  readonly pick: number;
  readonly other: number;
  readonly bytes: Uint8Array;
}

export const checkAction: fc.Arbitrary<CheckAction> = fc.record({
  kind: fc.constantFrom<CheckActionKind>(
    'create-file',
    'create-dir',
    'modify-same-size',
    'append',
    'delete-file',
    'delete-dir',
    'chmod',
    'dir-to-lookalike-symlink',
    'file-to-dir',
    'file-to-symlink',
    'rename',
    'retarget-symlink',
  ),
  pick: fc.nat(),
  other: fc.nat(),
  bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
});

/**
 * Sets the access and modification times of `file` back to those in `before`, to the nanosecond (`utimes`
 * from Node goes through a double and would miss by a fraction of a microsecond). Only the change time
 * then tells that the file was written.
 */
export function restoreTimes(file: string, before: BigIntStats): void {
  const at = (ns: bigint): string => `@${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;
  execFileSync('touch', ['-h', '-m', '-d', at(before.mtimeNs), file]);
  execFileSync('touch', ['-h', '-a', '-d', at(before.atimeNs), file]);
  const after = lstatSync(file, { bigint: true });
  if (after.mtimeNs !== before.mtimeNs) throw new Error(`could not set the mtime of ${file} back (${before.mtimeNs} → ${after.mtimeNs})`);
}

/**
 * Overwrites bytes of `file` in place (same inode, same size), then sets its times back: `exact` to the
 * nanosecond (two `touch` processes, slow), else with `utimes` (off by less than a microsecond).
 */
export function modifySameSize(file: string, bytes: Uint8Array, { exact = false }: { exact?: boolean } = {}): void {
  const before = lstatSync(file, { bigint: true });
  const old = readFileSync(file);
  const next = Buffer.from(old);
  for (let index = 0; index < next.length; index += 1) next[index] = (old[index] as number) ^ ((bytes[index % bytes.length] as number) | 1);
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, next, 0, next.length, 0);
  } finally {
    closeSync(fd);
  }
  if (exact) restoreTimes(file, before);
  else utimesSync(file, Number(before.atimeNs) / 1e9, Number(before.mtimeNs) / 1e9);
}

const IGNORABLE = new Set(['ENOENT', 'ENOTDIR', 'EEXIST', 'EISDIR', 'ENOTEMPTY']);

/**
 * Applies one action to `copy`, choosing its target among what the copy holds now (found with `lstat`,
 * so never through a symlink). Look-alikes (copies of a directory or file, same content) are made under
 * `lookalikes`, outside the copy. An action that meets a tree it cannot apply to (a parent that is now a
 * file) does nothing, as a failing check would. Returns a description, for failure messages.
 */
export function applyCheckAction(copy: string, lookalikes: string, action: CheckAction, serial: number): string {
  const tree = readTree(copy);
  const files = [...tree].filter(([, entry]) => entry.type === 'file').map(([file]) => file);
  const dirs = [...tree].filter(([, entry]) => entry.type === 'dir').map(([file]) => file);
  const links = [...tree].filter(([, entry]) => entry.type === 'symlink').map(([file]) => file);
  const at = (file: string): string => path.join(copy, file);
  const where = ['', ...dirs, 'node_modules/.cache', '.git', 'made/by/check'];
  let done = `${action.kind}: nothing to apply it to`;
  try {
    switch (action.kind) {
      case 'create-file': {
        const dir = pick(where, action.pick);
        mkdirSync(at(dir), { recursive: true });
        const file = path.posix.join(dir, `check-${serial}.out`);
        writeFileSync(at(file), action.bytes);
        done = `create file ${file}`;
        break;
      }
      case 'create-dir': {
        const dir = path.posix.join(pick(where, action.pick), `check-dir-${serial}`);
        mkdirSync(at(dir), { recursive: true });
        if (action.other % 2 === 0) writeFileSync(at(`${dir}/inner.txt`), action.bytes);
        done = `create dir ${dir}`;
        break;
      }
      case 'modify-same-size': {
        if (files.length === 0) break;
        const file = pick(files, action.pick);
        if (lstatSync(at(file)).size === 0) writeFileSync(at(file), action.bytes.subarray(0, 1));
        else modifySameSize(at(file), action.bytes);
        done = `modify ${file} in place, same size, times set back`;
        break;
      }
      case 'append': {
        if (files.length === 0) break;
        const file = pick(files, action.pick);
        writeFileSync(at(file), action.bytes, { flag: 'a' });
        done = `append to ${file}`;
        break;
      }
      case 'delete-file': {
        if (files.length === 0) break;
        const file = pick(files, action.pick);
        rmSync(at(file));
        done = `delete ${file}`;
        break;
      }
      case 'delete-dir': {
        if (dirs.length === 0) break;
        const dir = pick(dirs, action.pick);
        rmSync(at(dir), { recursive: true });
        done = `delete dir ${dir}`;
        break;
      }
      case 'chmod': {
        const targets = [...files, ...dirs];
        if (targets.length === 0) break;
        const file = pick(targets, action.pick);
        const entry = tree.get(file);
        const mode = entry?.type === 'dir' ? (entry.mode === 0o700 ? 0o750 : 0o700) : entry?.type === 'file' ? entry.mode ^ 0o111 : 0o644;
        chmodSync(at(file), mode);
        done = `chmod ${file} ${mode.toString(8)}`;
        break;
      }
      case 'dir-to-lookalike-symlink': {
        if (dirs.length === 0) break;
        const dir = pick(dirs, action.pick);
        const lookalike = path.join(lookalikes, `dir-${serial}`);
        cpSync(at(dir), lookalike, { recursive: true, verbatimSymlinks: true });
        rmSync(at(dir), { recursive: true });
        symlinkSync(lookalike, at(dir));
        done = `replace dir ${dir} by a symlink to the look-alike ${lookalike}`;
        break;
      }
      case 'file-to-dir': {
        if (files.length === 0) break;
        const file = pick(files, action.pick);
        rmSync(at(file));
        mkdirSync(at(file));
        writeFileSync(at(`${file}/inner.txt`), action.bytes);
        done = `replace file ${file} by a directory`;
        break;
      }
      case 'file-to-symlink': {
        if (files.length === 0) break;
        const file = pick(files, action.pick);
        const lookalike = path.join(lookalikes, `file-${serial}`);
        writeFileSync(lookalike, readFileSync(at(file)));
        chmodSync(lookalike, lstatSync(at(file)).mode & 0o7777);
        rmSync(at(file));
        symlinkSync(action.other % 2 === 0 ? lookalike : path.relative(path.dirname(at(file)), lookalike), at(file));
        done = `replace file ${file} by a symlink to the look-alike ${lookalike}`;
        break;
      }
      case 'rename': {
        if (files.length === 0) break;
        const file = pick(files, action.pick);
        const onto =
          action.other % 2 === 0 ? path.posix.join(path.posix.dirname(file), `renamed-${serial}.txt`) : pick(files, action.other);
        renameSync(at(file), at(onto));
        done = `rename ${file} to ${onto}`;
        break;
      }
      case 'retarget-symlink': {
        if (links.length === 0) break;
        const file = pick(links, action.pick);
        rmSync(at(file));
        symlinkSync(action.other % 2 === 0 ? 'elsewhere' : lookalikes, at(file));
        done = `retarget symlink ${file}`;
        break;
      }
    }
  } catch (error) {
    if (!IGNORABLE.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    done = `${action.kind} failed (${(error as NodeJS.ErrnoException).code})`;
  }
  return done;
}
