import { APICallError, NoObjectGeneratedError, NoOutputGeneratedError, RetryError } from 'ai';
import { z } from 'zod';
import { ProposerError } from '../errors/proposer-error.js';
import type { Proposer, Usage } from '../proposers/proposer.js';
import { resolveModel, type ModelSource, type RateLimited } from './model-source.js';
import { PROPOSAL_PROMPT_TEMPLATE, PROPOSER_SYSTEM, proposalPrompt } from './proposal-prompt.js';
import { requestObject } from './request-object.js';

const proposalSchema = z.object({
  files: z.record(z.string(), z.string().nullable()),
  value: z.unknown().optional(),
});

export type ModelProposerOptions = ModelSource &
  RateLimited & {
    /** USD per million tokens; without it the proposer reports no cost and a cost budget is refused. */
    readonly price?: { readonly input: number; readonly output: number } | undefined;
    readonly maxOutputTokens?: number | undefined;
    /** Bytes of file content (latest candidate's changes, then workspace files) put in the prompt. @default 204800 */
    readonly maxContextBytes?: number;
    /** Retries of a failed model call, with backoff, inside one attempt. @default 2 */
    readonly maxRetries?: number;
  };

function toProposerError(error: unknown, signal: AbortSignal): ProposerError {
  if (signal.aborted)
    return new ProposerError({ code: 'proposer.aborted', message: 'the run stopped while the model was answering', cause: error });
  if (NoObjectGeneratedError.isInstance(error) || NoOutputGeneratedError.isInstance(error)) {
    const text = NoObjectGeneratedError.isInstance(error) ? error.text : undefined;
    return new ProposerError({
      code: 'proposer.bad_output',
      message: `the model did not answer with a proposal: ${error.message}`,
      ...(text === undefined ? {} : { output: text }),
      cause: error,
    });
  }
  const apiError = RetryError.isInstance(error) ? error.lastError : error;
  const status = APICallError.isInstance(apiError) && apiError.statusCode !== undefined ? ` (HTTP ${apiError.statusCode})` : '';
  const body = APICallError.isInstance(apiError) ? apiError.responseBody : undefined;
  return new ProposerError({
    code: 'proposer.model_error',
    message: `the model call failed${status}: ${(error as Error)?.message ?? String(error)}`,
    ...(body === undefined ? {} : { output: body }),
    cause: error,
  });
}

/**
 * A proposer that asks a model, through the Vercel AI SDK, for a schema-constrained proposal built from
 * the request: goal, scope, workspace files in scope, the latest candidate, its failing findings and the
 * budgets left. Reports tokens always, and cost when `price` is set.
 * @throws {ProposerError} from `propose`: `proposer.model_error` when the call fails, `proposer.bad_output`
 * when the reply is not a proposal, `proposer.aborted` when the run stops meanwhile.
 * @example
 * const proposer = modelProposer({ baseURL: 'https://api.openai.com/v1', model: 'gpt-4.1-mini',
 *   apiKey: process.env.OPENAI_API_KEY, price: { input: 0.4, output: 1.6 } });
 */
export function modelProposer(options: ModelProposerOptions): Proposer {
  const { price, maxOutputTokens, maxContextBytes = 204_800, maxRetries = 2 } = options;
  const { languageModel, modelId } = resolveModel(options);
  return {
    name: `model:${modelId}`,
    capabilities: { reportsTokens: true, reportsCost: price !== undefined },
    identity: { kind: 'model', name: modelId, template: PROPOSAL_PROMPT_TEMPLATE },
    async propose(request, { signal, workspace }) {
      const prompt = await proposalPrompt({
        request,
        maxBytes: maxContextBytes,
        ...(workspace === undefined ? {} : { baseline: workspace.baselineFiles() }),
      });
      const { object, usage } = await requestObject({
        languageModel,
        schema: proposalSchema,
        system: PROPOSER_SYSTEM,
        prompt,
        maxRetries,
        maxOutputTokens,
        abortSignal: signal,
      }).catch((error: unknown) => {
        throw toProposerError(error, signal);
      });
      const { inputTokens, outputTokens } = usage;
      const costUsd =
        price === undefined || inputTokens === undefined || outputTokens === undefined
          ? undefined
          : (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
      const reported: Usage = {
        ...(inputTokens === undefined ? {} : { inputTokens }),
        ...(outputTokens === undefined ? {} : { outputTokens }),
        ...(costUsd === undefined ? {} : { costUsd }),
      };
      return { files: object.files, ...(object.value === undefined ? {} : { value: object.value }), usage: reported };
    },
  };
}
