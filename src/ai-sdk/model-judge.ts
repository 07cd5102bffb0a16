import { z } from 'zod';
import { TRANSITIONS, type Evidence, type Judge } from '../judge/judge.js';
import { resolveModel, type ModelSource, type RateLimited } from './model-source.js';
import { findingLine } from '../proposers/render.js';
import { requestObject } from './request-object.js';

const decisionSchema = z.object({
  transition: z.enum(TRANSITIONS),
  reason: z.string(),
  cites: z.array(z.string()),
  detail: z.string(),
});

const JUDGE_SYSTEM = [
  'You are the judge of a bounded refinement loop: from the evidence of one attempt you choose what happens next.',
  'Transitions: "retry" (refine again), "accept" (the candidate is done; only after a proposal and only when acceptance holds), "noop" (attempt 0 only: the baseline already holds with a demand red line), "block" (a human must act: missing authority, approval or policy), "fail" (stop without success).',
  'A stop verdict whose outcome is not "complete" binds: answer "block" for "blocked" and "fail" otherwise, never "retry".',
  'Answer with one JSON object: {"transition": …, "reason": "<stable snake_case code>", "cites": ["<check>" or "<check>#<reasonCode>" of findings listed in the evidence], "detail": "<one or two sentences>"}.',
].join('\n');

export type ModelJudgeOptions = ModelSource &
  RateLimited & {
    /** Retries of a failed model call, with backoff. @default 2 */
    readonly maxRetries?: number;
    /** Limit of one decision, retries included; none when absent (the run's wall-clock budget still applies). */
    readonly timeoutMs?: number;
  };

function evidencePrompt({ mission, attempt, candidate, findings, verdict, acceptance }: Evidence): string {
  return [
    `# Goal\n${mission.goal}`,
    `# Attempt ${attempt}${attempt === 0 ? ' (the baseline, before any proposal)' : ''}\nThe candidate changes: ${candidate.footprint.join(', ') || 'nothing'}${candidate.value === undefined ? '' : ' and sets a value'}.`,
    `# Findings\n${findings.map(findingLine).join('\n') || '(none)'}`,
    `# Stop verdict\n${verdict === undefined ? 'No guard stopped.' : `Guard ${verdict.guard} stopped with outcome "${verdict.outcome}", reason ${verdict.reason}: ${verdict.detail}`}`,
    `# Acceptance\n${acceptance.acceptable ? 'Holds.' : `Does not hold:\n${acceptance.problems.map((problem) => `- ${problem}`).join('\n')}`}\nThe mission ${acceptance.hasDemand ? 'has' : 'has no'} required demand red line.`,
  ].join('\n\n');
}

/**
 * A judge that asks a model for a schema-constrained decision from the complete evidence of an attempt.
 * It returns what the model decided: the runtime validates every decision and refuses a bad one.
 * @example
 * const judge = modelJudge({ baseURL: 'https://api.openai.com/v1', model: 'gpt-4.1', apiKey: process.env.OPENAI_API_KEY });
 */
export function modelJudge(options: ModelJudgeOptions): Judge {
  const { maxRetries = 2, timeoutMs } = options;
  const { languageModel, modelId } = resolveModel(options);
  return {
    name: `model:${modelId}`,
    async decide(evidence, { signal }) {
      const { object } = await requestObject({
        languageModel,
        schema: decisionSchema,
        system: JUDGE_SYSTEM,
        prompt: evidencePrompt(evidence),
        maxRetries,
        timeoutMs,
        abortSignal: signal,
      });
      return object;
    },
  };
}
