import type { CodeTask } from './tasks.js';

/** Which prompts a study sends: redline's own, or the published script's (in its Chinese original or in English). */
export const PROTOCOLS = ['redline', 'published', 'published-en'] as const;
export type Protocol = (typeof PROTOCOLS)[number];
export type PublishedProtocol = Exclude<Protocol, 'redline'>;

/**
 * The published script's prompt templates (docs/experiments.md, "The published protocol"). Placeholders:
 * `{desc}`, `{last_err}`, `{last_code}`, `{code}`, `{expected[:40]}` (the first 40 characters of the expected
 * output), and, in `tests`, `{test_stmt}` and `{expected}`. Each is filled once; a value is never re-read.
 */
export interface PublishedPrompts {
  /** Attempt 1, both conditions. */
  readonly first: string;
  /** Condition A, attempt n > 1. */
  readonly fix: string;
  /** `{last_err}` when the program exited 0 (or did not finish) and its output was not the expected one. */
  readonly mismatch: string;
  /** Condition B, attempt n > 1. */
  readonly improve: string;
  /** Condition B's self-judge, after every attempt. */
  readonly judge: string;
  /** What `{desc}` becomes in the proposer's prompts under `injectTests`: the script does not do this, the article says it did. */
  readonly tests: string;
}

// The Chinese strings are the script's own, byte for byte: its ASCII ',', ':' and '?' and its full-width '。' included.
export const PUBLISHED_PROMPTS: Readonly<Record<PublishedProtocol, PublishedPrompts>> = Object.freeze({
  published: Object.freeze({
    first: '写 Python 代码。{desc}\n只输出代码,不要解释。',
    fix: '修复错误。{desc}\n错误: {last_err}\n输出完整代码。',
    mismatch: '输出不符。期望: {expected[:40]}',
    improve: '改进代码。{desc}\n上次代码:\n{last_code}\n输出改进后的完整代码。',
    judge: '以下代码满足任务要求吗?{desc}\n---\n{code}\n---\n只回答 YES 或 NO。',
    tests: '{desc}\n测试: {test_stmt}\n期望输出: {expected}',
  }),
  'published-en': Object.freeze({
    first: 'Write Python code. {desc}\nOutput only the code, no explanation.',
    fix: 'Fix the error. {desc}\nError: {last_err}\nOutput the complete code.',
    mismatch: 'Output mismatch. Expected: {expected[:40]}',
    improve: 'Improve the code. {desc}\nPrevious code:\n{last_code}\nOutput the improved complete code.',
    judge: 'Does the following code satisfy the task requirements? {desc}\n---\n{code}\n---\nAnswer only YES or NO.',
    tests: '{desc}\nTest: {test_stmt}\nExpected output: {expected}',
  }),
});

/** Fills a template in one pass, so that a value holding a placeholder (a desc with `{code}` in it) stays as it is. */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(
    /\{(desc|last_err|last_code|code|test_stmt|expected|expected\[:40\])\}/g,
    (whole, key: string) => values[key] ?? whole,
  );
}

// Python's str.isspace() characters: what the script's `.strip()` removes.
const PY_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PY_STRIP = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, 'g');

/** Python's `text.strip()`. */
export const pythonStrip = (text: string): string => text.replace(PY_STRIP, '');

/** Python's `text[:count]`: the first `count` code points, not UTF-16 units. */
export const firstCodePoints = (text: string, count: number): string => Array.from(text).slice(0, count).join('');

/** The script's parsing of an answer: the first fenced code block (optionally tagged `python`), else the whole text; stripped. */
export function extractCode(answer: string): string {
  const block = /```(?:python)?\s*\n([\s\S]*?)```/.exec(answer);
  return pythonStrip(block === null ? answer : (block[1] as string));
}

/** The task's `{desc}` in the proposer's prompts: the desc, with the test and its expected output under `injectTests`. */
export function promptDesc(prompts: PublishedPrompts, task: CodeTask, injectTests: boolean): string {
  return injectTests ? fill(prompts.tests, { desc: task.desc, test_stmt: task.testStmt, expected: task.expected }) : task.desc;
}
