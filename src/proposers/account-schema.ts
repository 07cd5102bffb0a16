import { z } from 'zod';
import type { MeterAccount, ModelCall } from '../core/model-call.js';
import type { OutputTail, ProposerAccount } from '../core/proposer-account.js';

// The proposer's account as a schema: what a proposal may carry (validate-proposal.ts) and what an attempt
// record holds (ledger/run-records.ts). Loose like every record part: a field added later is kept.

const opt = z.exactOptional;

const outputTailSchema: z.ZodType<OutputTail> = z.looseObject({
  text: z.string(),
  droppedBytes: z.number().int().nonnegative(),
});

const count = z.number().int().nonnegative();
const refusal = z.enum(['budget_tokens', 'budget_cost', 'no_price']);

const modelCallSchema: z.ZodType<ModelCall> = z.looseObject({
  protocol: z.enum(['responses', 'chat', 'messages', 'other']),
  model: opt(z.string()),
  stream: z.boolean(),
  status: z.number().int(),
  atMs: z.number().nonnegative(),
  durationMs: z.number().nonnegative(),
  bytesUp: count,
  bytesDown: count,
  inputTokens: opt(count),
  cachedInputTokens: opt(count),
  cacheWriteTokens: opt(count),
  outputTokens: opt(count),
  costUsd: opt(z.number().nonnegative()),
  waitedMs: opt(z.number().nonnegative()),
  refused: opt(refusal),
  error: opt(z.string()),
});

const meterAccountSchema: z.ZodType<MeterAccount> = z.looseObject({
  spent: z.looseObject({ inputTokens: count, outputTokens: count, costUsd: opt(z.number().nonnegative()) }),
  calls: z.array(modelCallSchema).readonly(),
  dropped: count,
  ended: opt(refusal),
});

export const proposerAccountSchema: z.ZodType<ProposerAccount> = z.looseObject({
  kind: z.string(),
  exitCode: opt(z.number().int()),
  signal: opt(z.string()),
  killed: opt(z.enum(['timeout', 'output_cap', 'aborted', 'budget', 'environment'])),
  spawnError: opt(z.string()),
  durationMs: z.number().nonnegative(),
  stdout: outputTailSchema,
  stderr: outputTailSchema,
  transcript: opt(outputTailSchema),
  meter: opt(meterAccountSchema),
});
