import type { Ask } from '../../ai-sdk/model-ask.js';
import type { Finding } from '../../core/finding.js';
import type { Decision, Judge } from '../../judge/judge.js';
import type { Proposer, ProposalRequest } from '../../proposers/proposer.js';
import { PROGRAM_FAILED, PUBLISHED_CHECK } from './published-check.js';
import {
  PUBLISHED_PROMPTS,
  extractCode,
  fill,
  firstCodePoints,
  promptDesc,
  pythonStrip,
  type PublishedProtocol,
} from './published-prompts.js';
import type { Condition } from './task-mission.js';
import type { CodeTask } from './tasks.js';

/** One question the published protocol put to the model, and its answer, as sent and received. */
export interface PromptRecord {
  readonly attempt: number;
  readonly to: 'proposer' | 'judge';
  readonly prompt: string;
  readonly answer: string;
}

/** The script's `max_tokens` of a proposal. */
export const PROPOSAL_MAX_TOKENS = 1024;
/** The script's `max_tokens` of the self-judge's answer. */
export const JUDGE_MAX_TOKENS = 10;

/** The code the run has so far: the latest candidate's `solution.py`. */
const solutionOf = (files: Readonly<Record<string, string | null>> | undefined): string => files?.['solution.py'] ?? '';

/** Condition A's `{last_err}`: the failed program's stderr, else the mismatch text with the first 40 characters expected. */
function lastError(protocol: PublishedProtocol, task: CodeTask, findings: readonly Finding[]): string {
  const test = findings.find((item) => item.check === PUBLISHED_CHECK);
  if (test?.reasonCodes.includes(PROGRAM_FAILED) === true) return test.message;
  return fill(PUBLISHED_PROMPTS[protocol].mismatch, { 'expected[:40]': firstCodePoints(task.expected, 40) });
}

/** The prompt of one attempt: the first one, then A's "fix the error" or B's "improve the code". */
export function publishedPrompt({
  protocol,
  task,
  condition,
  injectTests = false,
  request,
}: {
  protocol: PublishedProtocol;
  task: CodeTask;
  condition: Condition;
  injectTests?: boolean;
  request: Pick<ProposalRequest, 'attempt' | 'state'>;
}): string {
  const prompts = PUBLISHED_PROMPTS[protocol];
  const desc = promptDesc(prompts, task, injectTests);
  if (request.attempt === 1) return fill(prompts.first, { desc });
  if (condition === 'redline') return fill(prompts.fix, { desc, last_err: lastError(protocol, task, request.state.findings) });
  return fill(prompts.improve, { desc, last_code: solutionOf(request.state.candidate?.files) });
}

/**
 * The published protocol's proposer: sends the script's prompt of the attempt as the one user message and writes
 * the code it parses from the answer (first fenced block, else the whole text) as `solution.py`.
 */
export function publishedProposer({
  ask,
  task,
  condition,
  protocol,
  injectTests = false,
  name,
  onPrompt,
}: {
  ask: Ask;
  task: CodeTask;
  condition: Condition;
  protocol: PublishedProtocol;
  injectTests?: boolean;
  /** What the report calls it, e.g. `model:qwen3:8b`. */
  name: string;
  onPrompt?: (record: PromptRecord) => void;
}): Proposer {
  return {
    name,
    capabilities: { reportsTokens: false, reportsCost: false },
    identity: { kind: 'model', name, template: `redline.${protocol}-prompt/1${injectTests ? '+tests' : ''}` },
    async propose(request, { signal }) {
      const prompt = publishedPrompt({ protocol, task, condition, injectTests, request });
      const answer = await ask(prompt, { signal, maxOutputTokens: PROPOSAL_MAX_TOKENS });
      onPrompt?.({ attempt: request.attempt, to: 'proposer', prompt, answer });
      return { files: { 'solution.py': extractCode(answer) } };
    },
  };
}

/** Whether the script counts an answer as YES: `answer.strip().upper().startswith("YES")`. */
export const publishedYes = (answer: string): boolean => pythonStrip(answer).toUpperCase().startsWith('YES');

/** The published protocol's self-judge: the script's question about the task and the code, answered in at most 10 tokens. */
export function publishedJudge({
  ask,
  task,
  protocol,
  onPrompt,
}: {
  ask: Ask;
  task: CodeTask;
  protocol: PublishedProtocol;
  onPrompt?: (record: PromptRecord) => void;
}): Judge {
  return {
    name: 'self-judge',
    async decide(evidence, { signal }): Promise<Decision> {
      if (evidence.attempt === 0) return { transition: 'retry', reason: 'self_judge_baseline' };
      const prompt = fill(PUBLISHED_PROMPTS[protocol].judge, { desc: task.desc, code: solutionOf(evidence.candidate.files) });
      const answer = await ask(prompt, { signal, maxOutputTokens: JUDGE_MAX_TOKENS });
      onPrompt?.({ attempt: evidence.attempt, to: 'judge', prompt, answer });
      const detail = `the model answered: ${answer.trim().slice(0, 200)}`;
      return publishedYes(answer)
        ? { transition: 'accept', reason: 'self_judge_yes', detail }
        : { transition: 'retry', reason: 'self_judge_no', detail };
    },
  };
}
