import type { LanguageModel } from 'ai';
import { openAICompatibleModel, type OpenAICompatibleModelOptions } from './openai-compatible.js';

/** Which model to call: an AI SDK model of any provider, or an OpenAI-compatible endpoint. */
export type ModelSource = { readonly languageModel: LanguageModel } | OpenAICompatibleModelOptions;

/** Resolves a {@link ModelSource} to a model and the id that names it. */
export function resolveModel(source: ModelSource): { languageModel: LanguageModel; modelId: string } {
  if ('languageModel' in source) {
    const { languageModel } = source;
    return { languageModel, modelId: typeof languageModel === 'string' ? languageModel : languageModel.modelId };
  }
  return { languageModel: openAICompatibleModel(source), modelId: source.model };
}
