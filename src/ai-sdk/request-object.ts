import { generateText, Output, type LanguageModel, type LanguageModelUsage } from 'ai';
import type { z } from 'zod';
import { longTimeoutSignal } from '../process/long-timeout.js';

export interface RequestObjectOptions<T> {
  readonly languageModel: LanguageModel;
  readonly schema: z.ZodType<T>;
  readonly system: string;
  readonly prompt: string;
  readonly maxRetries: number;
  readonly maxOutputTokens?: number | undefined;
  readonly timeoutMs?: number | undefined;
  readonly abortSignal?: AbortSignal;
}

/**
 * One schema-constrained model call. Throws the AI SDK's errors: `NoObjectGeneratedError` when the
 * reply is not JSON matching `schema`, `APICallError`/`RetryError` when the call itself failed.
 */
export async function requestObject<T>({
  languageModel,
  schema,
  system,
  prompt,
  maxRetries,
  maxOutputTokens,
  timeoutMs,
  abortSignal,
}: RequestObjectOptions<T>): Promise<{ object: T; usage: LanguageModelUsage }> {
  // Not the AI SDK's own `timeout`: its AbortSignal.timeout fires at once beyond 2^31−1 ms, and a mission's timeout may be longer.
  const deadline = timeoutMs === undefined ? undefined : longTimeoutSignal({ delayMs: timeoutMs });
  const signals = [abortSignal, deadline?.signal].filter((signal) => signal !== undefined);
  const result = await generateText({
    model: languageModel,
    system,
    prompt,
    output: Output.object({ schema }),
    maxRetries,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(signals.length === 0 ? {} : { abortSignal: AbortSignal.any(signals) }),
    // Strict JSON schema mode forbids open records and free-form values, which a proposal needs; the
    // schema still guides the model and the AI SDK validates the reply against it.
    providerOptions: { openaiCompatible: { strictJsonSchema: false } },
  }).finally(() => deadline?.clear());
  return { object: result.output, usage: result.usage };
}
