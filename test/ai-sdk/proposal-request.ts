import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Finding } from '../../src/core/finding.js';
import type { Candidate } from '../../src/core/candidate.js';
import { defineMission } from '../../src/mission/mission.js';
import { PROPOSER_PROTOCOL, type ProposalRequest } from '../../src/proposers/proposer.js';
import { tempDir } from '../helpers/workspace.js';

/** A real temporary workspace holding `files` (relative path → content). */
export async function workspaceWith(files: Record<string, string | Buffer>): Promise<string> {
  const dir = await tempDir('redline-ai-sdk-');
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
  }
  return dir;
}

export const failingTest: Finding = {
  check: 'tests',
  stage: 'fast',
  tier: 'demand',
  status: 'fail',
  reasonCodes: ['test.failed'],
  message: 'expected add(2, 2) to be 4, got 5',
  location: { file: 'src/add.js', line: 3, test: 'adds' },
};

/** A proposal request for attempt 2 of a mission over `workspaceDir` (a value mission without one). */
export function proposalRequest({
  workspaceDir,
  candidate = null,
  findings = [failingTest],
  scope,
}: {
  workspaceDir?: string;
  candidate?: Candidate | null;
  findings?: Finding[];
  scope?: string[];
}): ProposalRequest {
  const mission = defineMission(
    {
      id: 'fix-add',
      goal: 'Make add() return the sum of its arguments',
      ...(workspaceDir === undefined ? {} : { workspace: workspaceDir }),
      ...(scope === undefined ? {} : { scope }),
    },
    { baseDir: workspaceDir ?? tmpdir() },
  );
  return {
    protocol: PROPOSER_PROTOCOL,
    mission,
    attempt: 2,
    state: { candidate, findings, budgetsLeft: { attempts: 4, tokens: 90_000 }, completedChecks: ['tests'], recentSignatures: [] },
  };
}

/** The text of every message of a recorded chat-completions request body. */
export function promptOf(body: unknown): string {
  return (body as { messages: Array<{ content: string }> }).messages.map((message) => message.content).join('\n');
}
