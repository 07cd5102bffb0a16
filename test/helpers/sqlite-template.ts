import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from './workspace.js';

/**
 * A SQLite file made once per process by `make` (on first use, in a temporary folder removed when the
 * process exits), and a function that copies it to a path: storage in the state `make` leaves it, for the
 * price of a file copy rather than the migrations and the WAL switch of a fresh file. `make` must close
 * every connection it opens: closing the last one checkpoints the WAL into the file and deletes it, so
 * the file alone is the whole database.
 */
export function sqliteTemplate(make: (file: string) => Promise<void>): (file: string) => Promise<void> {
  let template: Promise<string> | undefined;
  const made = (): Promise<string> => {
    template ??= (async () => {
      const file = path.join(await tempDir('redline-template-'), 'template.db');
      await make(file);
      return file;
    })();
    return template;
  };
  return async (file) => copyFile(await made(), file);
}
