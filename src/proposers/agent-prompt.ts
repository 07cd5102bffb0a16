import type { ProposalRequest } from './proposer.js';
import { findingLine } from './render.js';

/**
 * The version of {@link agentPrompt}'s template, part of an agent proposer's identity (and so of the run's
 * plan hash): change it whenever the prompt's wording or sections change.
 */
export const AGENT_PROMPT_TEMPLATE = 'redline.agent-prompt/1';

/** Failing findings listed in full; more are counted. */
const MAX_LISTED = 50;

/**
 * The request as a prompt for an agent that edits files in place: the goal, the scope, the attempt and
 * budgets, and the failing findings of the latest check set. The agent sees the files themselves in
 * its working directory, so none are quoted here.
 */
export function agentPrompt({ mission, attempt, state }: ProposalRequest): string {
  const failing = state.findings.filter((finding) => finding.status === 'fail' || finding.status === 'error');
  const shown = failing.slice(0, MAX_LISTED).map(findingLine).join('\n');
  return [
    `# Goal\n${mission.goal}`,
    `# Scope\nChange only paths matching: ${mission.scope.join(', ')}. Edit the files in the current directory in place; do not commit.`,
    `# Attempt\nAttempt ${attempt}, ${state.budgetsLeft.attempts} left including this one.${state.candidate === null ? '' : " The directory already holds your previous attempt's changes."}`,
    `# Failing checks\n${failing.length === 0 ? (state.candidate === null ? 'Not run yet.' : 'None.') : shown}${failing.length > MAX_LISTED ? `\n… and ${failing.length - MAX_LISTED} more` : ''}`,
  ].join('\n\n');
}
