import { readdirSync } from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { pathIn } from './path-in.js';
import { isRacy, sameStamp, stampAt, type Stamp } from './stamp.js';
import { sweptUnchanged, unchangedAt } from './stamp-sweep.js';

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
  /** Whether the copy should hold anything at a path: entries of a changed directory that it should not are extra. */
  readonly expected: (file: string) => boolean;
  /** Paths left out of the comparison (declared outputs). */
  readonly isOutput: (file: string) => boolean;
}

/** What one walk of {@link inputChanges} found. */
export interface InputChanges {
  /** The expected paths, outputs left out, that are not as the last reset left them, in path order. */
  readonly changed: string[];
  /**
   * Everything a reset has to undo, outputs included: expected paths to write again (a changed stamp
   * counts, even where the bytes are the same) and paths created in directories whose stamp changed.
   */
  readonly drift: { readonly changed: ReadonlySet<string>; readonly extra: ReadonlySet<string> };
}

/**
 * The expected paths of a copy that are not as its last reset left them, in path order: one `lstat` per
 * path, compared with the stamp the reset took. A file or symlink counts as changed when its kind, inode,
 * size, modification or change time or mode differs (the change time cannot be set back, so a write
 * that restores the old bytes and times counts too), or when it is gone; a directory when it is gone,
 * replaced or its mode changed, not when entries are created in it (caches, reports). A stamp taken in
 * the same clock tick as the reset's end could be shared by a later write: such a path is also compared
 * by content. The same walk lists what a reset would have to undo (`drift`), so that a reset that follows
 * before anything runs in the copy again need not walk it a second time. Nothing is written.
 */
export async function inputChanges({ dir, stamps, settledAt, holds, expected, isOutput }: InputChangesOptions): Promise<InputChanges> {
  const changed: string[] = [];
  const driftChanged = new Set<string>();
  const extra = new Set<string>();
  const note = (file: string): void => {
    driftChanged.add(file);
    if (!isOutput(file)) changed.push(file);
  };
  // Which stamps are unchanged, found on two threads for a large copy: only the others are stamped here.
  const unchanged = await unchangedAt(dir, stamps);
  let compared = 0;
  for (const [file, stamp] of stamps) {
    compared += 1;
    if (compared % BATCH === 0) await yieldToLoop();
    const now = sweptUnchanged(unchanged, compared - 1, file, stamp) ? stamp : stampAt(pathIn(dir, file));
    if (now === undefined) {
      note(file);
      continue;
    }
    if (stamp.kind === 'dir' && now.kind === 'dir' && now.ino === stamp.ino && now.mode === stamp.mode) {
      // Entries created or removed in it: those it should not hold are extra.
      if (!sameStamp(now, stamp) || isRacy(stamp, settledAt))
        for (const name of readdirSync(pathIn(dir, file))) {
          const child = file === '' ? name : `${file}/${name}`;
          if (!expected(child)) extra.add(child);
        }
      continue;
    }
    if (stamp.kind !== 'dir' && sameStamp(now, stamp) && (!isRacy(stamp, settledAt) || holds(file))) continue;
    note(file);
  }
  return { changed: changed.sort(), drift: { changed: driftChanged, extra } };
}
