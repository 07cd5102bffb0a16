import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One entry of a repository folder. */
export interface RepoEntry {
  readonly name: string;
  readonly directory: boolean;
}

/**
 * What `redline init` reads of a repository: files by their path relative to its root (`/`-separated).
 * A small port, so detection runs over a temp directory or an in-memory layout alike.
 */
export interface RepoFiles {
  /** The file's text, or undefined when there is no such file. */
  read(file: string): string | undefined;
  /** The folder's entries (`''` for the root), sorted by name; none when there is no such folder. */
  list(dir: string): readonly RepoEntry[];
}

/** A repository on disk. Symbolic links are listed as files and never followed into folders. */
export function diskFiles(root: string): RepoFiles {
  return {
    read(file) {
      try {
        return readFileSync(path.join(root, file), 'utf8');
      } catch {
        return undefined;
      }
    },
    list(dir) {
      try {
        return readdirSync(path.join(root, dir), { withFileTypes: true })
          .map((entry) => ({ name: entry.name, directory: entry.isDirectory() }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      } catch {
        return [];
      }
    },
  };
}

/**
 * A repository held in memory, by file path and text: its folders are the paths' prefixes.
 * @example
 * memoryFiles({ 'package.json': '{}', 'src/add.js': 'export const add = (a, b) => a + b;' });
 */
export function memoryFiles(files: Readonly<Record<string, string>>): RepoFiles {
  return {
    read: (file) => (Object.hasOwn(files, file) ? files[file] : undefined),
    list(dir) {
      const prefix = dir === '' ? '' : `${dir}/`;
      const entries = new Map<string, boolean>();
      for (const file of Object.keys(files)) {
        if (!file.startsWith(prefix)) continue;
        const [name = '', ...rest] = file.slice(prefix.length).split('/');
        entries.set(name, rest.length > 0 || entries.get(name) === true);
      }
      return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, directory]) => ({ name, directory }));
    },
  };
}
