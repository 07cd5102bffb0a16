import type { Proposal, ProposalRequest, Proposer } from './proposer.js';

/**
 * Wraps a function as a proposer (library use).
 * @example
 * const proposer = functionProposer(async ({ state }) => ({ files: { 'src/a.js': fix(state.findings) } }));
 */
export function functionProposer(
  propose: (request: ProposalRequest, options: { readonly signal: AbortSignal }) => Proposal | Promise<Proposal>,
  { name = 'function', reportsTokens = false, reportsCost = false }: { name?: string; reportsTokens?: boolean; reportsCost?: boolean } = {},
): Proposer {
  return {
    name,
    capabilities: { reportsTokens, reportsCost },
    // Two different functions under one name are one plan: name a changed function differently.
    identity: { kind: 'function', name },
    propose: async (request, options) => propose(request, options),
  };
}
