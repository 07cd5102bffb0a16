import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';

export interface OpenAICompatibleModelOptions {
  /** Base URL of the endpoint, up to and including `/v1`, e.g. `https://api.openai.com/v1`. */
  readonly baseURL: string;
  /** Model id the endpoint knows, e.g. `gpt-4.1-mini`. */
  readonly model: string;
  /** Sent as `Authorization: Bearer <apiKey>`; local servers usually need none. */
  readonly apiKey?: string | undefined;
}

/**
 * An AI SDK chat model served by any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, LM Studio, …).
 * Structured output is requested as a `json_schema` response format.
 * @example
 * const model = openAICompatibleModel({ baseURL: 'http://localhost:11434/v1', model: 'qwen3:8b' });
 */
export function openAICompatibleModel({ baseURL, model, apiKey }: OpenAICompatibleModelOptions): LanguageModel {
  return createOpenAICompatible({ name: 'redline', baseURL, ...(apiKey === undefined ? {} : { apiKey }), supportsStructuredOutputs: true })(
    model,
  );
}
