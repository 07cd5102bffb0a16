import { z } from 'zod';
import type { OutputTail, ProposerAccount } from '../core/proposer-account.js';

// The proposer's account as a schema: what a proposal may carry (validate-proposal.ts) and what an attempt
// record holds (ledger/run-records.ts). Loose like every record part: a field added later is kept.

const opt = z.exactOptional;

const outputTailSchema: z.ZodType<OutputTail> = z.looseObject({
  text: z.string(),
  droppedBytes: z.number().int().nonnegative(),
});

export const proposerAccountSchema: z.ZodType<ProposerAccount> = z.looseObject({
  kind: z.string(),
  exitCode: opt(z.number().int()),
  signal: opt(z.string()),
  killed: opt(z.enum(['timeout', 'output_cap', 'aborted'])),
  spawnError: opt(z.string()),
  durationMs: z.number().nonnegative(),
  stdout: outputTailSchema,
  stderr: outputTailSchema,
  transcript: opt(outputTailSchema),
});
