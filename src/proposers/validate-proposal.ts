import { z } from 'zod';
import { ProposerError } from '../errors/proposer-error.js';
import { malformedPath } from '../workspace/path-rules.js';
import type { Proposal } from './proposer.js';

const proposalSchema = z
  .object({
    files: z.record(z.string(), z.string().nullable()).optional(),
    value: z.unknown().optional(),
    usage: z
      .object({
        inputTokens: z.number().int().nonnegative().optional(),
        outputTokens: z.number().int().nonnegative().optional(),
        costUsd: z.number().nonnegative().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/**
 * Checks a proposer's answer against the protocol.
 * @throws {ProposerError} `proposer.bad_output` or `proposer.bad_path`.
 */
export function validateProposal(raw: unknown): Proposal {
  const parsed = proposalSchema.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    throw new ProposerError({ code: 'proposer.bad_output', message: `the proposal does not match the protocol: ${detail}` });
  }
  for (const file of Object.keys(parsed.data.files ?? {})) {
    const problem = malformedPath(file);
    if (problem !== undefined) throw new ProposerError({ code: 'proposer.bad_path', message: `the proposal names ${problem}` });
  }
  return parsed.data;
}
