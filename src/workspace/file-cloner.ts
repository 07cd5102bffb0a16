import { constants, copyFileSync, rmSync, statfsSync } from 'node:fs';

/** File systems whose clones (`FICLONE`) are block sharing on the local disk: XFS and btrfs. */
const CLONING_FILE_SYSTEMS: ReadonlySet<number> = new Set([0x58465342, 0x9123683e]);
/** procfs: `/proc/self/fd/N` names the open file itself only there. */
const PROC_FILE_SYSTEM = 0x9fa0;
/** Errors that say clones cannot be made here at all (another file system, none supported, no /proc): cloning stops. */
const CANNOT_CLONE = new Set(['EXDEV', 'EOPNOTSUPP', 'ENOTSUP', 'ENOSYS', 'ENOTTY', 'ENOENT', 'EPERM', 'EACCES']);

function fileSystemType(dir: string): number | undefined {
  try {
    return statfsSync(dir).type;
  } catch {
    return undefined;
  }
}

/**
 * Clones open files into a copy where its file system shares blocks between files on the local disk
 * (reflinks: XFS, btrfs, on Linux), so that a large file's copy costs no writes. Elsewhere it never tries
 * (ext4, tmpfs, network file systems, whose server-side clones a client's `fstat` cannot vouch for), and
 * an error saying clones cannot be made here turns it off: the caller then writes that copy, and every later one.
 */
export class FileCloner {
  #usable: boolean;
  #cloned = 0;

  /** @param dir the copy's folder: its file system decides. */
  constructor(dir: string) {
    const type = process.platform === 'linux' ? fileSystemType(dir) : undefined;
    this.#usable = type !== undefined && CLONING_FILE_SYSTEMS.has(type) && fileSystemType('/proc') === PROC_FILE_SYSTEM;
  }

  /** Files cloned and kept so far. */
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
   * cannot; the clone holds what the file held at that moment, which the caller has to confirm (or
   * {@link discard} the clone).
   */
  clone(fd: number, target: string): boolean {
    if (!this.#usable) return false;
    try {
      copyFileSync(`/proc/self/fd/${fd}`, target, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE_FORCE);
      this.#cloned += 1;
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (CANNOT_CLONE.has(code)) this.#usable = false;
      // Something at `target` before is not ours to remove; what a failed clone left is.
      if (code !== 'EEXIST') rmSync(target, { force: true });
      return false;
    }
  }

  /** Removes a clone the caller could not confirm (it writes that copy instead). */
  discard(target: string): void {
    rmSync(target, { force: true });
    this.#cloned -= 1;
  }
}
