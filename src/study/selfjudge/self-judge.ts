import type { Ask } from '../../ai-sdk/model-ask.js';
import type { Decision, Judge } from '../../judge/judge.js';
import { DEFAULT_STRIP_PATTERNS, stripThinking } from '../../core/strip-thinking.js';

/** The built-in self-judge prompts: `{task}` and `{code}` are filled in. */
export const JUDGE_PROMPTS = {
  'yes-no':
    'Task: {task}\n\nHere is your code:\n\n{code}\n\nDoes this code correctly and completely satisfy the task? Answer with one word: YES or NO.',
  finish:
    'Task: {task}\n\nHere is your current code:\n\n{code}\n\nIf the code is finished and correct, reply FINISH. If it still needs work, reply CONTINUE.',
} as const;
export type JudgePromptName = keyof typeof JUDGE_PROMPTS;

/** First words of an answer that mean "done"; any other answer means "not yet". */
const YES_WORDS = new Set(['YES', 'FINISH', 'FINISHED', 'DONE']);

/** Whether a model's answer says the code is done: its first word, after any thinking, is YES or FINISH. */
export function saysYes(answer: string): boolean {
  const visible = stripThinking(answer, DEFAULT_STRIP_PATTERNS);
  const word = /[A-Za-z]+/.exec(visible)?.[0]?.toUpperCase();
  return word !== undefined && YES_WORDS.has(word);
}

/** The candidate's files as the judge sees them: the content alone for one file, else each under its path. */
function codeOf(files: Readonly<Record<string, string | null>>): string {
  const present = Object.entries(files).filter((entry): entry is [string, string] => entry[1] !== null);
  if (present.length === 1) return (present[0] as [string, string])[1];
  return present.map(([file, content]) => `# ${file}\n${content}`).join('\n\n') || '(no code yet)';
}

/**
 * Condition B's judge: after each attempt it asks the model whether its code satisfies the task, and
 * accepts on YES (or FINISH), retries otherwise. It sees the goal and the code only, never a test.
 */
export function selfJudge({ ask, template }: { ask: Ask; template: string }): Judge {
  return {
    name: 'self-judge',
    async decide(evidence, { signal }): Promise<Decision> {
      if (evidence.attempt === 0) return { transition: 'retry', reason: 'self_judge_baseline' };
      const prompt = template.replaceAll('{task}', evidence.mission.goal).replaceAll('{code}', codeOf(evidence.candidate.files));
      const answer = await ask(prompt, { signal });
      const detail = `the model answered: ${answer.trim().slice(0, 200)}`;
      return saysYes(answer)
        ? { transition: 'accept', reason: 'self_judge_yes', detail }
        : { transition: 'retry', reason: 'self_judge_no', detail };
    },
  };
}
