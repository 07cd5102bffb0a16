import { closeSync, constants, copyFileSync, fstatSync, openSync, rmSync } from 'node:fs';
import { isRacy, sameStamp, stampOf, type Stamp } from './stamp.js';

/**
 * Clones open files into a copy where the file system shares blocks between files (reflinks: btrfs, XFS
 * on Linux), so that a large file's copy costs no writes. The first file it cannot clone (another file
 * system, ext4, another platform) turns it off: the caller writes that copy, and every later one.
 */
export class FileCloner {
  #usable = process.platform === 'linux';
  #cloned = 0;

  /** Files cloned so far. */
  get cloned(): number {
    return this.#cloned;
  }

  /** Whether cloning is still worth trying. */
  get usable(): boolean {
    return this.#usable;
  }

  /**
   * Clones the file open on `fd` (whatever its path has become since: its `/proc/self/fd` link names the
   * open file itself) to `target`, which must not exist. False, with nothing left at `target`, when it
   * cannot; the copy then holds what the file held at some moment, which the caller has to confirm.
   */
  clone(fd: number, target: string): boolean {
    if (!this.#usable) return false;
    try {
      copyFileSync(`/proc/self/fd/${fd}`, target, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE_FORCE);
      this.#cloned += 1;
      return true;
    } catch (error) {
      this.#usable = false;
      // Something at `target` before is not ours to remove; a file the failed clone created is.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(target, { force: true });
      return false;
    }
  }
  /**
   * Clones the file at `source` to `target` (which must not exist) when its stamp is `expected`, older than
   * `settled` (no later write can share it), both before and after the clone: the clone then holds the
   * bytes the file held when that stamp was taken. False, with nothing left at `target`, otherwise.
   */
  cloneUnchanged(source: string, target: string, expected: Stamp, settled: number): boolean {
    if (!this.#usable || isRacy(expected, settled)) return false;
    let fd: number;
    try {
      // O_NOFOLLOW: a file swapped for a symlink is not followed.
      fd = openSync(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return false;
    }
    try {
      if (!sameStamp(stampOf(fstatSync(fd)), expected) || !this.clone(fd, target)) return false;
      if (sameStamp(stampOf(fstatSync(fd)), expected)) return true;
      this.#cloned -= 1;
      rmSync(target, { force: true });
      return false;
    } finally {
      closeSync(fd);
    }
  }
}
