import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { MissionError } from '../errors/mission-error.js';
import { defineMission, type Mission } from './mission.js';

function fileError(source: string, message: string, expected: string, got: string): MissionError {
  return new MissionError({ source, issues: [{ path: '(root)', expected, got, message }] });
}

/**
 * Reads a mission from a `.json`, `.yaml` or `.yml` file. Relative paths in it resolve against the
 * file's directory.
 * @throws {MissionError} when the file cannot be read, parsed or validated, or its workspace is not an
 *   existing directory.
 */
export async function loadMission(file: string): Promise<Mission> {
  const source = path.resolve(file);
  const extension = path.extname(source).toLowerCase();
  if (!['.json', '.yaml', '.yml'].includes(extension)) {
    throw fileError(
      source,
      `expected a .json, .yaml or .yml file, got "${extension || 'no extension'}"`,
      '.json, .yaml or .yml',
      extension || 'no extension',
    );
  }
  let text: string;
  try {
    if (!(await stat(source)).isFile()) throw fileError(source, 'expected a file, got a directory', 'a file', 'a directory');
    text = await readFile(source, 'utf8');
  } catch (error) {
    if (error instanceof MissionError) throw error;
    throw fileError(
      source,
      `cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      'a readable file',
      'no such file',
    );
  }
  let data: unknown;
  try {
    data = extension === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos !== undefined ? ` at line ${error.linePos[0].line}` : '';
    throw fileError(
      source,
      `cannot parse ${extension.slice(1).toUpperCase()}${where}: ${(error as Error).message.split('\n')[0]}`,
      `valid ${extension.slice(1).toUpperCase()}`,
      'a syntax error',
    );
  }
  const mission = defineMission(data, { baseDir: path.dirname(source), source });
  if (mission.workspaceDir !== undefined) {
    // Said here, where the file is known: the run would only have the mission's id to name.
    const found = await stat(mission.workspaceDir).then(
      (info) => (info.isDirectory() ? undefined : 'not a directory'),
      () => 'no such directory',
    );
    if (found !== undefined) {
      throw new MissionError({
        source,
        issues: [
          {
            path: 'workspace',
            expected: 'an existing directory',
            got: found,
            message: `the workspace ${JSON.stringify(mission.workspace)} (resolved against the mission file to ${mission.workspaceDir}) is ${found === 'not a directory' ? 'not a directory' : 'missing'}`,
          },
        ],
      });
    }
  }
  return mission;
}
