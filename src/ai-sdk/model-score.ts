import type { LanguageModel } from 'ai';
import { z } from 'zod';
import type { CheckContext } from '../core/check.js';
import type { ScoreFunction } from '../checks/score-check.js';
import { resolveModel, type RateLimited } from './model-source.js';
import type { OpenAICompatibleModelOptions } from './openai-compatible.js';
import { changedFileBlocks, fenced } from '../proposers/render.js';
import { requestObject } from './request-object.js';

const scoreSchema = z.object({
  score: z.number().min(0).max(1),
  findings: z.array(z.object({ reasonCode: z.string(), message: z.string() })),
});

const SCORE_SYSTEM = [
  'You are a strict reviewer scoring a candidate against a goal and a rubric.',
  'Answer with one JSON object: {"score": <number from 0 to 1, where 1 fully meets the rubric>, "findings": [{"reasonCode": "<short stable code, e.g. rubric.missing_example>", "message": "<the problem, citing where>"}]}.',
  'List one finding per problem; keep reason codes stable so that the same problem gets the same code on every attempt.',
].join('\n');

export type ModelScoreOptions = (
  | { readonly languageModel: LanguageModel }
  | (Omit<OpenAICompatibleModelOptions, 'apiKey'> & {
      /** Environment variable holding the API key; when named explicitly it must be set. @default 'OPENAI_API_KEY' */
      readonly apiKeyEnv?: string | undefined;
    })
) &
  RateLimited & {
    /** What a good candidate looks like; the model scores against it and the goal. */
    readonly rubric: string;
    /** Limit of one scoring call, retries included; none when absent. */
    readonly timeoutMs?: number;
    /** Bytes of candidate file content put in the prompt. @default 204800 */
    readonly maxContextBytes?: number;
    /** Retries of a failed model call, with backoff. @default 2 */
    readonly maxRetries?: number;
  };

function apiKeyFrom(apiKeyEnv: string | undefined): string | undefined {
  if (apiKeyEnv === undefined) return process.env.OPENAI_API_KEY;
  const apiKey = process.env[apiKeyEnv];
  if (apiKey === undefined) throw new TypeError(`Expected an API key in the environment variable ${apiKeyEnv}, got none`);
  return apiKey;
}

function scorePrompt({ candidate, goal, attempt }: CheckContext, rubric: string, maxBytes: number): string {
  const { blocks, leftOut } = changedFileBlocks(candidate.files, maxBytes);
  return [
    `# Goal\n${goal}`,
    `# Rubric\n${rubric}`,
    `# Candidate (attempt ${attempt})\nChanges it makes to the workspace:\n${blocks.join('\n\n') || '(none)'}`,
    leftOut.length === 0 ? undefined : `Not shown, too large: ${leftOut.join(', ')}`,
    candidate.value === undefined ? undefined : `Value:\n${fenced(JSON.stringify(candidate.value, null, 2))}`,
  ]
    .filter((section) => section !== undefined)
    .join('\n\n');
}

/**
 * A score judge for `scoreCheck`: asks a model for a schema-constrained `{ score, findings }` about
 * the candidate's files and value against the goal and the rubric. A failed call or a reply off the
 * schema throws, which the score check records as a `judge.failed` error finding.
 * @throws {TypeError} when `apiKeyEnv` names an unset environment variable.
 * @example
 * const score = await modelScore({ baseURL: 'https://api.openai.com/v1', model: 'gpt-4.1-mini',
 *   rubric: 'The README explains installation and has a runnable example.' });
 * const check = scoreCheck({ name: 'readme-quality', score });
 */
export async function modelScore(options: ModelScoreOptions): Promise<ScoreFunction> {
  const { rubric, timeoutMs, maxContextBytes = 204_800, maxRetries = 2 } = options;
  const { rateLimiter } = options;
  const { languageModel } = resolveModel(
    'languageModel' in options
      ? options
      : { baseURL: options.baseURL, model: options.model, apiKey: apiKeyFrom(options.apiKeyEnv), rateLimiter },
  );
  return async (context) => {
    const { object } = await requestObject({
      languageModel,
      schema: scoreSchema,
      system: SCORE_SYSTEM,
      prompt: scorePrompt(context, rubric, maxContextBytes),
      maxRetries,
      timeoutMs,
      abortSignal: context.signal,
    });
    return { score: object.score, notes: object.findings };
  };
}
