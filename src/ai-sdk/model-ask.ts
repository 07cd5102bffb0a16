import { defaultSettingsMiddleware, generateText, wrapLanguageModel } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { openAICompatibleModel, type OpenAICompatibleModelOptions } from './openai-compatible.js';

/**
 * An OpenAI-compatible model with temperature 0 on every call, as the published experiment ran: the
 * proposer and the self-judge of `study redline-vs-selfjudge` both use it. Loaded only when the study calls a model (the AI SDK is optional).
 */
export function temperatureZeroModel(options: OpenAICompatibleModelOptions): LanguageModelV3 {
  return wrapLanguageModel({
    model: openAICompatibleModel(options) as LanguageModelV3,
    middleware: defaultSettingsMiddleware({ settings: { temperature: 0 } }),
  });
}

/** A question to a model and its plain-text answer, at most `maxOutputTokens` long when that is given. */
export type Ask = (prompt: string, options: { readonly signal: AbortSignal; readonly maxOutputTokens?: number }) => Promise<string>;

/** Asks the model for a plain-text answer (a self-judge's question), the prompt as the one user message. */
export function modelAsk(languageModel: LanguageModelV3, { maxRetries = 2 }: { maxRetries?: number } = {}): Ask {
  return async (prompt, { signal, maxOutputTokens }) =>
    (
      await generateText({
        model: languageModel,
        prompt,
        maxRetries,
        abortSignal: signal,
        ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
      })
    ).text;
}
