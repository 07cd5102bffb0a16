import os from 'node:os';
import { redactCommand } from './redact-command.js';
import { replaceSpans, spansOf, unquoted, type ShellWord, type Span } from './shell-words.js';

// What a command line is in a run's plan (run/run-plan.ts): the recipe, without what changes from one run
// of it to the next. docs/ledger.md#linked-runs-and-plans states the rule.

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Words after which a simple command still starts. */
const KEYWORDS = new Set(['!', '{', 'then', 'do', 'else', 'elif', 'if', 'while', 'until', 'time']);
/** `env` options that take the next word (`-u NAME`, `-C DIR`, `-S STRING`, also ending a cluster: `-iu NAME`). */
const ENV_OPTION_WITH_ARGUMENT = /^(?:-[^-]*[uCS]|--unset|--chdir|--split-string)$/;
/** How deep quoted command lines inside quoted command lines are read. */
const MAX_DEPTH = 8;
const PORT_OPTION = /(--port(?:=|\s+))\d+/g;
const LOOPBACK_PORT = /((?<![\w.-])(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])):\d+/gi;
/** mktemp's names (`tmp.XXXXXXXXXX`), wherever they are. */
const MKTEMP_NAME = /(?<![\w.-])tmp\.[A-Za-z0-9]{6,}(?![\w.-])/g;
/** Characters that end a path's component in a command line. */
const COMPONENT = String.raw`[^/\s'"\`;&|()<>:]+`;

/** The words of one simple command that set its environment: its leading `NAME=value` words, and those after `env` (with `env` itself when nothing but them followed it). */
function assignmentWords(words: readonly ShellWord[]): number[] {
  const values = words.map((word) => word.value);
  const assignments: number[] = [];
  const assignment = (index: number): boolean => {
    const word = words[index];
    return word !== undefined && ASSIGNMENT.test(word.value) && unquoted(word, word.value.indexOf('=') + 1);
  };
  let index = 0;
  while (KEYWORDS.has(values[index] ?? '')) index += 1;
  while (assignment(index)) assignments.push(index++);
  if (values[index] !== 'env' && !values[index]?.endsWith('/env')) return assignments;
  const env = index;
  let options = false;
  let assigned = false;
  for (index += 1; index < values.length; index += 1) {
    const value = values[index] as string;
    if (assignment(index)) {
      assignments.push(index);
      assigned = true;
    } else if (value.startsWith('-') && value !== '-') {
      options = true;
      if (ENV_OPTION_WITH_ARGUMENT.test(value)) index += 1;
    } else break;
  }
  if (assigned && !options) assignments.push(env);
  return assignments;
}

/** The spans of a command line's environment assignments (see {@link assignmentWords}), inside quoted command lines too, each with the blanks after it. */
function assignmentSpans(source: string, depth: number): Span[] {
  const spans = spansOf(source, (words) => {
    const found = words.map(({ value }): Span[] => (depth < MAX_DEPTH && /\s/.test(value) ? assignmentSpans(value, depth + 1) : []));
    for (const index of assignmentWords(words)) found[index] = [{ from: 0, to: (words[index] as ShellWord).value.length }];
    return found;
  });
  return spans.map(({ from, to }) => {
    let end = to;
    while (source[end] === ' ' || source[end] === '\t') end += 1;
    return { from, to: end };
  });
}

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The identity of a command line in a run's plan: the line as recorded ({@link redactCommand}), without
 * its environment assignments (leading `NAME=value` words and `env NAME=value`, inside `sh -c '…'` too),
 * with the port of `--port N` and of loopback addresses (`127.0.0.1:N`, `localhost:N`, `[::1]:N`) as
 * `<port>`, and a temporary path's first component under a temporary directory (`tempDirs`) — or a
 * mktemp name (`tmp.XXXXXXXXXX`) anywhere — as `<tmp>`. A line with none of these is its own identity.
 * @example commandIdentity(`CODEX_HOME=/tmp/tmp.Qx81Zk codex exec -c base_url=http://127.0.0.1:41237/v1 "$REDLINE_PROMPT"`)
 * // 'codex exec -c base_url=http://127.0.0.1:<port>/v1 "$REDLINE_PROMPT"'
 */
export function commandIdentity(
  command: string,
  {
    tempDirs = [os.tmpdir(), '/tmp', '/var/tmp'],
  }: {
    /** @default [os.tmpdir(), '/tmp', '/var/tmp'] */
    readonly tempDirs?: readonly string[];
  } = {},
): string {
  const recorded = redactCommand(command);
  let identity = replaceSpans(recorded, assignmentSpans(recorded, 0), '')
    .replace(PORT_OPTION, '$1<port>')
    .replace(LOOPBACK_PORT, '$1:<port>');
  // Longest first: a temporary directory inside another is replaced whole.
  const roots = [...new Set(tempDirs.map((dir) => dir.replace(/\/+$/, '')).filter((dir) => dir.length > 1))].sort(
    (a, b) => b.length - a.length,
  );
  for (const root of roots) identity = identity.replace(new RegExp(`(?<![\\w./-])${escaped(root)}/${COMPONENT}`, 'g'), '<tmp>');
  return identity.replace(MKTEMP_NAME, '<tmp>');
}
