import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempWorkspace } from './workspace.js';

/** Answers right after reading the expected value from the failing finding: a changed plan. */
export const ANSWER_AGENT = path.resolve(import.meta.dirname, '../fixtures/proposers/answer-agent.sh');

/** A mission that blocks at the human gate after two failed rounds, with a proposer that always answers 41. */
export async function gatedMission(): Promise<{ dir: string; file: string; wrong: string }> {
  const dir = await tempWorkspace({ 'ws/src/answer.txt': '0\n' });
  const file = path.join(dir, 'mission.json');
  await writeFile(
    file,
    JSON.stringify({
      id: 'gated',
      goal: 'write the answer',
      workspace: 'ws',
      scope: ['src/**'],
      budgets: { maxAttempts: 6 },
      stopPolicy: { guards: [{ humanGate: { n: 2 } }] },
      checks: [{ name: 'answer', kind: 'expected-output', command: 'cat src/answer.txt', expected: '42' }],
    }),
  );
  return { dir, file, wrong: `printf '%s' '{"files":{"src/answer.txt":"41\\n"}}'` };
}

/** The run id of a `redline run --json` summary. */
export const runIdOf = (stdout: string): string => (JSON.parse(stdout) as { runId: string }).runId;
