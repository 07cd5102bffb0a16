/**
 * Thinking-token leakage a model may leave in its output, stripped from the final output a reviewer sees:
 * closed `<think>` and `<thinking>` blocks, then a closing tag whose opening the prompt template held
 * (everything before it), then an opening tag never closed (everything after it). Matched
 * case-insensitively.
 */
export const DEFAULT_STRIP_PATTERNS: readonly string[] = Object.freeze([
  '<think>[\\s\\S]*?</think>',
  '<thinking>[\\s\\S]*?</thinking>',
  '^[\\s\\S]*?</think(?:ing)?>',
  '<think(?:ing)?>[\\s\\S]*$',
]);

/** How many matches of one pattern were stripped. */
export interface Stripped {
  readonly pattern: string;
  readonly count: number;
}

/** Compiles a strip pattern as it is matched: globally and case-insensitively. */
export function stripRegExp(pattern: string): RegExp {
  return new RegExp(pattern, 'gi');
}

/** `value` (a string, or the strings inside arrays and objects) with every match of `patterns` removed, counted per pattern. */
export function stripThinking<T>(value: T, patterns: readonly string[], counts: Map<string, number> = new Map()): T {
  if (typeof value === 'string') {
    let text: string = value;
    for (const pattern of patterns) {
      text = text.replace(stripRegExp(pattern), () => {
        counts.set(pattern, (counts.get(pattern) ?? 0) + 1);
        return '';
      });
    }
    return text as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => stripThinking(item, patterns, counts)) as T;
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, stripThinking(item, patterns, counts)])) as T;
  return value;
}
