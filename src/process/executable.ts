import { accessSync, constants } from 'node:fs';
import path from 'node:path';

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The program `name` to run: `explicit` when given (undefined unless it is executable), else
 * `/usr/bin/<name>`, else `name` found on redline's PATH; undefined when there is none.
 *
 * @example
 * findExecutable('perl'); // '/usr/bin/perl'
 */
export function findExecutable(name: string, explicit?: string): string | undefined {
  if (explicit !== undefined) return isExecutable(explicit) ? explicit : undefined;
  const candidates = [
    path.join('/usr/bin', name),
    ...(process.env.PATH ?? '')
      .split(path.delimiter)
      .filter(Boolean)
      .map((dir) => path.join(dir, name)),
  ];
  return candidates.find(isExecutable);
}
