import { z } from 'zod';
import { ProposerError } from '../errors/proposer-error.js';
import { malformedPath } from '../workspace/path-rules.js';
import { proposerAccountSchema } from './account-schema.js';
import type { Proposal, Usage } from './proposer.js';

const usageSchema = z
  .object({
    inputTokens: z.number().int().nonnegative().optional(),
    outputTokens: z.number().int().nonnegative().optional(),
    costUsd: z.number().nonnegative().optional(),
  })
  .strict();

const proposalSchema = z
  .object({
    files: z.record(z.string(), z.string().nullable()).optional(),
    value: z.unknown().optional(),
    usage: usageSchema.optional(),
    account: proposerAccountSchema.optional(),
  })
  .strict();

/** The usage a failed proposer reported, when it has the protocol's shape; undefined otherwise. */
export function reportedUsage(raw: unknown): Usage | undefined {
  const parsed = usageSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Checks a proposer's answer against the protocol.
 * @throws {ProposerError} `proposer.bad_output` or `proposer.bad_path`.
 */
export function validateProposal(raw: unknown): Proposal {
  // JSON.parse keeps a member named __proto__, which parsing into a record would silently drop.
  const files = (raw as { files?: unknown } | null)?.files;
  if (typeof files === 'object' && files !== null && Object.hasOwn(files, '__proto__')) {
    throw new ProposerError({ code: 'proposer.bad_path', message: 'the proposal names a path "__proto__", which a candidate cannot hold' });
  }
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
