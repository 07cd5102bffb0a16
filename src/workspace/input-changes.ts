import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { pathIn } from './path-in.js';
import { isRacy, lstatOrNothing, sameStamp, stampOf, type Stamp } from './stamp.js';

/** `lstat` calls between two turns of the event loop. */
const BATCH = 4096;

/** What {@link inputChanges} compares: a copy, the stamps its last reset took, and what to leave out. */
export interface InputChangesOptions {
  /** The copy. */
  readonly dir: string;
  /** The stamp of every expected path (snapshot + candidate; '' is the root) as the last reset left it. */
  readonly stamps: ReadonlyMap<string, Stamp>;
  /** The file system's clock when that reset ended (see `isRacy`). */
  readonly settledAt: number;
  /** Whether a path still holds what the copy should hold there: content and mode, or a symlink's target. */
  readonly holds: (file: string) => boolean;
  /** Paths left out of the comparison (declared outputs). */
  readonly isOutput: (file: string) => boolean;
}

/**
 * The expected paths of a copy that are not as its last reset left them, in path order: one `lstat` per
 * path, compared with the stamp the reset took. A file or symlink counts as changed when its kind, inode,
 * size, modification or change time or mode differs (the change time cannot be set back, so a write
 * that restores the old bytes and times counts too), or when it is gone; a directory when it is gone,
 * replaced or its mode changed, not when entries are created in it (caches, reports). A stamp taken in
 * the same clock tick as the reset's end could be shared by a later write: such a path is also compared
 * by content. Nothing is written.
 */
export async function inputChanges({ dir, stamps, settledAt, holds, isOutput }: InputChangesOptions): Promise<string[]> {
  const changed: string[] = [];
  let compared = 0;
  for (const [file, stamp] of stamps) {
    compared += 1;
    if (compared % BATCH === 0) await yieldToLoop();
    if (isOutput(file)) continue;
    const info = lstatOrNothing(pathIn(dir, file));
    if (info === undefined) {
      changed.push(file);
      continue;
    }
    const now = stampOf(info);
    const same =
      stamp.kind === 'dir'
        ? now.kind === 'dir' && now.ino === stamp.ino && now.mode === stamp.mode
        : sameStamp(now, stamp) && (!isRacy(stamp, settledAt) || holds(file));
    if (!same) changed.push(file);
  }
  return changed.sort();
}
