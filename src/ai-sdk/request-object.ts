import { generateText, Output, type LanguageModel, type LanguageModelUsage } from 'ai';
import type { z } from 'zod';

export interface RequestObjectOptions<T> {
  readonly languageModel: LanguageModel;
  readonly schema: z.ZodType<T>;
  readonly system: string;
  readonly prompt: string;
  readonly maxRetries: number;
  readonly maxOutputTokens?: number;
  readonly timeoutMs?: number;
  readonly abortSignal?: AbortSignal;
}

/**
 * One schema-constrained model call. Throws the AI SDK's errors: `NoObjectGeneratedError` when the
 * reply is not JSON matching `schema`, `APICallError`/`RetryError` when the call itself failed.
 */
export async function requestObject<T>({ languageModel, schema, system, prompt, maxRetries, maxOutputTokens, timeoutMs, abortSignal }: RequestObjectOptions<T>): Promise<{ object: T; usage: LanguageModelUsage }> {
  const result = await generateText({
    model: languageModel,
    system,
    prompt,
    output: Output.object({ schema }),
    maxRetries,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    ...(abortSignal === undefined ? {} : { abortSignal }),
    // Strict JSON schema mode forbids open records and free-form values, which a proposal needs; the
    // schema still guides the model and the AI SDK validates the reply against it.
    providerOptions: { openaiCompatible: { strictJsonSchema: false } },
  });
  return { object: result.output, usage: result.usage };
}
