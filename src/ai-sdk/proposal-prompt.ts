import type { BaselineFile, BudgetsLeft, ProposalRequest } from '../proposers/proposer.js';
import { changedFileBlocks, fenced, fileBlock, findingLine } from '../proposers/render.js';
import { readBaselineFiles, readWorkspaceFiles } from './workspace-files.js';

/** Failing findings listed in full, and left-out files named; more are counted. */
const MAX_LISTED = 50;

function listed<T>(items: readonly T[], show: (item: T) => string, separator: string): string {
  return `${items.slice(0, MAX_LISTED).map(show).join(separator)}${items.length > MAX_LISTED ? `${separator}… and ${items.length - MAX_LISTED} more` : ''}`;
}

/**
 * The version of the model proposer's prompt template ({@link PROPOSER_SYSTEM} and {@link proposalPrompt}),
 * part of its identity (and so of the run's plan hash): change it whenever either one's wording or sections change.
 */
export const PROPOSAL_PROMPT_TEMPLATE = 'redline.proposal-prompt/1';

export const PROPOSER_SYSTEM = [
  'You are the proposer in a bounded refinement loop: each attempt you propose a candidate, checks test it, and you see their findings on the next attempt.',
  'Answer with one JSON object: {"files": {"<path relative to the workspace>": "<complete new content>" or null to delete}, "value": <optional JSON value>}.',
  'Your files apply on top of the latest candidate: list only the files you change, each with its complete content, and stay within the scope.',
  'Missions without a workspace are answered with "value" and an empty "files".',
].join('\n');

function budgetsLine({ attempts, tokens, wallClockMs, costUsd }: BudgetsLeft): string {
  const parts = [`attempts ${attempts} (this one included)`];
  if (tokens !== undefined) parts.push(`tokens ${tokens}`);
  if (wallClockMs !== undefined) parts.push(`time ${Math.max(0, Math.round(wallClockMs / 1000))} s`);
  if (costUsd !== undefined) parts.push(`cost $${costUsd.toFixed(4)}`);
  return parts.join(', ');
}

/**
 * The user prompt for one proposal: goal, scope, the workspace files in scope (from the run's snapshot), the latest candidate's
 * changes, the failing findings and the budgets left. File contents share `maxBytes`, the latest
 * candidate's changes first; what does not fit is named, not shown.
 */
export async function proposalPrompt({
  request,
  maxBytes,
  baseline,
}: {
  request: ProposalRequest;
  maxBytes: number;
  baseline?: readonly BaselineFile[];
}): Promise<string> {
  const { mission, attempt, state } = request;
  const changes = state.candidate?.files ?? {};
  const candidate = changedFileBlocks(changes, maxBytes);
  const selection = { scope: mission.scope, skip: new Set(Object.keys(changes)), maxBytes: candidate.bytesLeft };
  // The run's snapshot when the loop offers it; the workspace directory for a caller without one.
  const workspace =
    mission.workspaceDir === undefined
      ? undefined
      : baseline !== undefined
        ? await readBaselineFiles(baseline, selection)
        : await readWorkspaceFiles({ dir: mission.workspaceDir, ...selection });
  const leftOut = [...candidate.leftOut, ...(workspace?.leftOut ?? [])];

  const failing = state.findings.filter((finding) => finding.status === 'fail' || finding.status === 'error');
  const sections = [
    `# Goal\n${mission.goal}`,
    `# Scope\nYou may change only paths matching: ${mission.scope.join(', ')}${mission.declaredOutputs.length === 0 ? '' : `\nThe candidate must produce: ${mission.declaredOutputs.join(', ')}`}`,
    workspace === undefined
      ? '# Workspace\nThis mission has no workspace: answer with "value".'
      : `# Workspace files in scope\n${workspace.files.map(([file, content]) => fileBlock(file, content)).join('\n\n') || '(none)'}`,
    state.candidate === null
      ? undefined
      : `# Latest candidate\nChanges on top of the workspace so far:\n${candidate.blocks.join('\n\n') || '(none)'}${state.candidate.value === undefined ? '' : `\n\nValue:\n${fenced(JSON.stringify(state.candidate.value, null, 2))}`}`,
    leftOut.length === 0
      ? undefined
      : `# Files left out\nThese files are binary or did not fit in ${maxBytes} bytes of context, so they are not shown: ${listed(leftOut, String, ', ')}`,
    `# Failing findings\n${failing.length === 0 ? 'None.' : listed(failing, findingLine, '\n')}`,
    `# Budgets left\nAttempt ${attempt}; left: ${budgetsLine(state.budgetsLeft)}.`,
  ];
  return sections.filter((section) => section !== undefined).join('\n\n');
}
