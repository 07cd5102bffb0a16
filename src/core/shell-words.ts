// A lenient reading of shell command lines for what redline records of them (redact-command.ts,
// command-identity.ts), never for running them: the shell that runs a command reads it itself.

/** One word of a command line, as the shell would pass it, and where each of its characters came from. */
export interface ShellWord {
  /** Quotes removed, backslash escapes resolved; `$(…)`, `${…}` and backquoted text kept as written. */
  readonly value: string;
  /** `at[i]` is the index in the source of `value[i]`. */
  readonly at: readonly number[];
  /** The word's span in the source, quotes included: `[start, end)`. */
  readonly start: number;
  readonly end: number;
}

const BLANK = new Set([' ', '\t', '\r']);
/** Characters that end a simple command: lists, pipes, subshells, newlines. */
const SEPARATOR = new Set([';', '&', '|', '(', ')', '\n']);
/** Escapes that a backslash makes inside double quotes; before any other character it stays. */
const DOUBLE_QUOTED_ESCAPES = '"\\$`\n';

/** The index just past the quoted or bracketed text that starts at `open` (`'…'`, `"…"`, `$(…)`, `${…}`, `` `…` ``); the end of `source` when it is not closed. */
function closing(source: string, open: number): number {
  const char = source[open];
  if (char === "'") {
    const close = source.indexOf("'", open + 1);
    return close < 0 ? source.length : close + 1;
  }
  if (char === '"' || char === '`') {
    for (let index = open + 1; index < source.length; index += 1) {
      if (source[index] === '\\') index += 1;
      else if (source[index] === char) return index + 1;
    }
    return source.length;
  }
  // `$(` or `${`: nested brackets of the same kind counted, quoted text skipped.
  const [opening, close] = source[open + 1] === '(' ? ['(', ')'] : ['{', '}'];
  let depth = 0;
  for (let index = open + 1; index < source.length; index += 1) {
    const inner = source[index];
    if (inner === '\\') index += 1;
    else if (inner === "'" || inner === '"' || inner === '`') index = closing(source, index) - 1;
    else if (inner === opening) depth += 1;
    else if (inner === close && --depth === 0) return index + 1;
  }
  return source.length;
}

/**
 * The simple commands of a command line, each as its words: split at `;`, `&`, `|`, `(`, `)` and newlines;
 * redirections (`>`, `2>&1`) end a word and are dropped; `#` at a word's start comments out the line. An
 * unterminated quote runs to the end of the line's source.
 * @example shellCommands(`A=1 codex "fix it" && echo done`).map((words) => words.map((word) => word.value))
 * // [['A=1', 'codex', 'fix it'], ['echo', 'done']]
 */
export function shellCommands(source: string): ShellWord[][] {
  const commands: ShellWord[][] = [];
  let words: ShellWord[] = [];
  let value = '';
  let at: number[] = [];
  let start = -1;
  const take = (index: number): void => {
    value += source[index];
    at.push(index);
  };
  const endWord = (end: number): void => {
    if (start >= 0) words.push({ value, at, start, end });
    value = '';
    at = [];
    start = -1;
  };
  const endCommand = (): void => {
    if (words.length > 0) commands.push(words);
    words = [];
  };
  let index = 0;
  while (index < source.length) {
    const char = source[index] as string;
    const next = source[index + 1];
    if (BLANK.has(char)) {
      endWord(index);
      index += 1;
    } else if (char === '>' || char === '<' || (char === '&' && next === '>')) {
      endWord(index);
      // `>&`, `<&`, `&>`: one redirection, not a background `&`.
      index += next === '&' || next === '>' ? 2 : 1;
    } else if (SEPARATOR.has(char)) {
      endWord(index);
      endCommand();
      index += 1;
    } else if (char === '#' && start < 0) {
      const newline = source.indexOf('\n', index);
      index = newline < 0 ? source.length : newline;
    } else if (char === '\\') {
      if (start < 0) start = index;
      // A backslash-newline joins lines; any other escaped character is itself.
      if (next !== undefined && next !== '\n') take(index + 1);
      else if (next === undefined) take(index);
      index += 2;
    } else if (char === "'" || char === '"') {
      if (start < 0) start = index;
      const end = closing(source, index);
      const stop = source[end - 1] === char && end - 1 > index ? end - 1 : end;
      for (let inner = index + 1; inner < stop; inner += 1) {
        if (char === '"' && source[inner] === '\\' && DOUBLE_QUOTED_ESCAPES.includes(source[inner + 1] ?? '')) {
          inner += 1;
          if (source[inner] === '\n') continue;
        }
        take(inner);
      }
      index = end;
    } else if (char === '`' || (char === '$' && (next === '(' || next === '{'))) {
      if (start < 0) start = index;
      const end = closing(source, index);
      for (let inner = index; inner < end; inner += 1) take(inner);
      index = end;
    } else {
      if (start < 0) start = index;
      take(index);
      index += 1;
    }
  }
  endWord(source.length);
  endCommand();
  return commands;
}

/** The words of an argv array: each argument as it is, with nothing quoted. */
export function argvWords(argv: readonly string[]): ShellWord[] {
  return argv.map((value) => ({ value, at: Array.from({ length: value.length }, (_, index) => index), start: 0, end: value.length }));
}

/** Whether the first `length` characters of a word's value stand unquoted in its source: the shell reads `NAME=` as an assignment only then. */
export function unquoted(word: ShellWord, length: number): boolean {
  return length === 0 || word.at[length - 1] === word.start + length - 1;
}

/** `[from, to)` in a text. */
export interface Span {
  readonly from: number;
  readonly to: number;
}

/** Overlapping or touching spans as one, in order; empty ones dropped. */
export function mergedSpans(spans: readonly Span[]): Span[] {
  const out: Span[] = [];
  for (const span of [...spans].sort((a, b) => a.from - b.from)) {
    const last = out.at(-1);
    if (last !== undefined && span.from <= last.to) out[out.length - 1] = { from: last.from, to: Math.max(last.to, span.to) };
    else if (span.to > span.from) out.push(span);
  }
  return out;
}

/**
 * The spans of `source` that `find` picks in the words of each of its simple commands (by word index, in
 * the coordinates of each word's value), mapped back through quotes and escapes, merged and in order. A
 * span that covers a whole value covers the whole word, its quotes included.
 */
export function spansOf(source: string, find: (words: readonly ShellWord[]) => readonly (readonly Span[])[]): Span[] {
  const spans: Span[] = [];
  for (const words of shellCommands(source)) {
    const found = find(words);
    words.forEach((word, index) => {
      for (const { from, to } of found[index] ?? []) {
        if (to <= from) continue;
        if (from === 0 && to === word.value.length) spans.push({ from: word.start, to: word.end });
        else spans.push({ from: word.at[from] as number, to: (word.at[to - 1] as number) + 1 });
      }
    });
  }
  return mergedSpans(spans);
}

/** `text` with each span (as {@link spansOf} or {@link mergedSpans} gives them: in order, apart) replaced by `by`. */
export function replaceSpans(text: string, spans: readonly Span[], by: string): string {
  let out = '';
  let at = 0;
  for (const { from, to } of spans) {
    out += text.slice(at, from) + by;
    at = to;
  }
  return out + text.slice(at);
}
