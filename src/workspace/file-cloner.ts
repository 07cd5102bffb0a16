import { constants, copyFileSync, rmSync } from 'node:fs';

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
}
