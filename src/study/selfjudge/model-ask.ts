import { defaultSettingsMiddleware, generateText, wrapLanguageModel } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { openAICompatibleModel, type OpenAICompatibleModelOptions } from '../../ai-sdk/openai-compatible.js';
import type { Ask } from './self-judge.js';

/**
 * An OpenAI-compatible model with temperature 0 on every call, as the published experiment ran: the
 * proposer and the self-judge both use it. Loaded only when the study calls a model (the AI SDK is optional).
 */
export function temperatureZeroModel(options: OpenAICompatibleModelOptions): LanguageModelV3 {
  return wrapLanguageModel({
    model: openAICompatibleModel(options) as LanguageModelV3,
    middleware: defaultSettingsMiddleware({ settings: { temperature: 0 } }),
  });
}

/** Asks the model for a plain-text answer (the self-judge's question). */
export function modelAsk(languageModel: LanguageModelV3, { maxRetries = 2 }: { maxRetries?: number } = {}): Ask {
  return async (prompt, { signal }) => (await generateText({ model: languageModel, prompt, maxRetries, abortSignal: signal })).text;
}
