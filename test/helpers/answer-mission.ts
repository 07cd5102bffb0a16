import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A mission file `<dir>/<id>.json` over the workspace `<dir>/<id>/`: src/answer.txt holds 0, and its one
 * check expects 42. `extra` fields are merged into the mission (a proposer, budgets, another goal).
 */
export async function answerMission(dir: string, id: string, extra: Record<string, unknown> = {}): Promise<string> {
  await mkdir(path.join(dir, id, 'src'), { recursive: true });
  await writeFile(path.join(dir, id, 'src/answer.txt'), '0\n');
  const file = path.join(dir, `${id}.json`);
  await writeFile(
    file,
    JSON.stringify({
      id,
      goal: 'write the answer',
      workspace: id,
      scope: ['src/**'],
      checks: [{ name: 'answer', kind: 'expected-output', command: 'cat src/answer.txt', expected: '42' }],
      ...extra,
    }),
  );
  return file;
}
