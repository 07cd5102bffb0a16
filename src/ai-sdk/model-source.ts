import type { LanguageModel } from 'ai';
import { endpointKey } from '../limits/rate-limit.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { openAICompatibleModel, type OpenAICompatibleModelOptions } from './openai-compatible.js';
import { rateLimitedModel } from './rate-limited-model.js';

/** Which model to call: an AI SDK model of any provider, or an OpenAI-compatible endpoint. */
export type ModelSource = { readonly languageModel: LanguageModel } | OpenAICompatibleModelOptions;

/** Model calls under rate limits: each waits for its endpoint's turn (a fleet shares them through PostgreSQL). */
export interface RateLimited {
  /**
   * Admits every call (each retry too) under the limits of its endpoint (the `baseURL`, or a library
   * model's provider id) and model. None: calls go at once.
   */
  readonly rateLimiter?: RateLimiter | undefined;
}

/** Resolves a {@link ModelSource} to a model and the id that names it, rate-limited when a limiter is given. */
export function resolveModel(source: ModelSource & RateLimited): { languageModel: LanguageModel; modelId: string } {
  const resolved =
    'languageModel' in source
      ? {
          languageModel: source.languageModel,
          modelId: typeof source.languageModel === 'string' ? source.languageModel : source.languageModel.modelId,
        }
      : { languageModel: openAICompatibleModel(source), modelId: source.model };
  const { rateLimiter } = source;
  if (rateLimiter === undefined) return resolved;
  const endpoint =
    'languageModel' in source
      ? typeof source.languageModel === 'string'
        ? source.languageModel
        : source.languageModel.provider
      : endpointKey(source.baseURL);
  return { ...resolved, languageModel: rateLimitedModel(resolved.languageModel, rateLimiter, endpoint) };
}
