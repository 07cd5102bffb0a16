import { stat } from 'node:fs/promises';
import { isPostgres } from './open-ledger.js';

/** Which file a path named when it was opened: its device and inode. */
interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

async function identityOf(file: string): Promise<FileIdentity | undefined> {
  try {
    const { dev, ino } = await stat(file);
    return { dev, ino };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * A check that the SQLite ledger file a long-lived process opened is still the file at its path. A file
 * deleted or replaced while the process holds it open keeps taking writes that no later process sees
 * (a later run creates a new file, and two queues exist): before a write, the process asks this and
 * stops writing when it answers a reason. Take it right after opening the file. PostgreSQL ledgers
 * (`postgres://` URLs) have no file: the check always answers undefined.
 * @example
 * const moved = await ledgerFileGuard(location);
 * const why = await moved(); // undefined while the file is in place
 */
export async function ledgerFileGuard(location: string): Promise<() => Promise<string | undefined>> {
  if (isPostgres(location)) return async () => undefined;
  const opened = await identityOf(location);
  if (opened === undefined) throw new TypeError(`Expected a ledger file at ${location}, got none`);
  return async () => {
    const now = await identityOf(location);
    if (now === undefined) return `the ledger file ${location} was deleted after this process opened it`;
    if (now.dev !== opened.dev || now.ino !== opened.ino)
      return `the ledger file ${location} was replaced by another file after this process opened it`;
    return undefined;
  };
}
