import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StudyOptionError } from './study-option-error.js';

const EXPECTED = 'a directory, or a path where one can be created';

/** The error code of a failed file-system call, or its message. */
function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

/**
 * Checks, without creating anything, that `dir` is a directory or can be made one: a study that runs
 * for minutes learns of a bad `out` before it starts, not when it writes its first figure.
 * @throws {StudyOptionError} for option `out` when `dir` or one of its ancestors is a file, or cannot be looked at.
 */
export async function assertOutDir(dir: string): Promise<void> {
  const target = path.resolve(dir);
  for (let current = target; ; current = path.dirname(current)) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(current)).isDirectory();
    } catch (error) {
      // Missing, or under a file (ENOTDIR): the nearest ancestor that exists decides.
      if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') {
        if (path.dirname(current) === current) return;
        continue;
      }
      throw new StudyOptionError({ option: 'out', expected: EXPECTED, got: `${JSON.stringify(dir)} (${codeOf(error)} on ${current})` });
    }
    if (isDirectory) return;
    throw new StudyOptionError({
      option: 'out',
      expected: EXPECTED,
      got: current === target ? `${JSON.stringify(dir)}, which is a file` : `${JSON.stringify(dir)}, under the file ${current}`,
    });
  }
}

/**
 * Writes `files` (name → text) into `dir`, created if missing, and returns the paths written.
 * @throws {StudyOptionError} for option `out` when `dir` cannot be made or written.
 */
export async function writeOutFiles({ dir, files }: { dir: string; files: Readonly<Record<string, string>> }): Promise<string[]> {
  await assertOutDir(dir);
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new StudyOptionError({ option: 'out', expected: EXPECTED, got: `${JSON.stringify(dir)} (${codeOf(error)} creating it)` });
  }
  return Promise.all(
    Object.entries(files).map(async ([name, text]) => {
      const file = path.join(dir, name);
      try {
        await writeFile(file, text);
      } catch (error) {
        throw new StudyOptionError({
          option: 'out',
          expected: 'a directory the study can write its figures into',
          got: `${JSON.stringify(dir)} (${codeOf(error)} writing ${name})`,
        });
      }
      return file;
    }),
  );
}
