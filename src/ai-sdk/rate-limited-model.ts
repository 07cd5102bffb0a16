import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { wrapLanguageModel, type LanguageModel } from 'ai';
import type { RateLimiter, RateRequest } from '../limits/rate-limiter.js';

/** Output tokens reserved for a call that sets no cap; the call settles with what it used. */
const DEFAULT_OUTPUT_TOKENS = 1024;

/** What a call may use: its prompt at about 4 characters a token, plus its output cap. */
export function estimateTokens(params: LanguageModelV3CallOptions): number {
  return Math.ceil(JSON.stringify(params.prompt).length / 4) + (params.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS);
}

/** Prompt and completion tokens a call reported; undefined when the provider reported neither. */
function usedTokens(usage: LanguageModelV3Usage): number | undefined {
  const { total: input } = usage.inputTokens;
  const { total: output } = usage.outputTokens;
  return input === undefined && output === undefined ? undefined : (input ?? 0) + (output ?? 0);
}

/**
 * The model with every call (each retry too) admitted by `limiter` under the limits of `endpoint` and the
 * model's id, and settled with the tokens the provider reported. A call that fails keeps its reservation.
 * @throws {TypeError} for a model given by id (a string) or of an older specification: only a model object can be wrapped.
 */
export function rateLimitedModel(languageModel: LanguageModel, limiter: RateLimiter, endpoint: string): LanguageModelV3 {
  if (typeof languageModel === 'string' || languageModel.specificationVersion !== 'v3')
    throw new TypeError(
      `Expected a LanguageModelV3 object to rate-limit, got ${typeof languageModel === 'string' ? `the model id ${JSON.stringify(languageModel)}` : `a ${languageModel.specificationVersion} model`}`,
    );
  const requestOf = (params: LanguageModelV3CallOptions): RateRequest => ({
    endpoint,
    model: languageModel.modelId,
    tokens: estimateTokens(params),
  });
  return wrapLanguageModel({
    model: languageModel,
    middleware: {
      specificationVersion: 'v3',
      async wrapGenerate({ doGenerate, params }) {
        const request = requestOf(params);
        const grant = await limiter.acquire(request, { signal: params.abortSignal });
        let used = request.tokens;
        try {
          const result = await doGenerate();
          used = usedTokens(result.usage) ?? used;
          return result;
        } finally {
          await grant.settle(used).catch(() => undefined);
        }
      },
      async wrapStream({ doStream, params }) {
        const request = requestOf(params);
        const grant = await limiter.acquire(request, { signal: params.abortSignal });
        let used = request.tokens;
        const settle = (): Promise<void> => grant.settle(used).catch(() => undefined);
        const result = await Promise.resolve(doStream()).catch(async (error: unknown) => {
          await settle();
          throw error;
        });
        const watch = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          transform(part, controller) {
            if (part.type === 'finish') used = usedTokens(part.usage) ?? used;
            controller.enqueue(part);
          },
          flush: settle,
        });
        return { ...result, stream: result.stream.pipeThrough(watch) };
      },
    },
  });
}
