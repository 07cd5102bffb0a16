import { argvWords, mergedSpans, replaceSpans, spansOf, unquoted, type ShellWord, type Span } from './shell-words.js';

// Secrets written into a command line are redacted before the line is recorded (run.started, the plan,
// span names): the command that runs is never changed. docs/agents.md#secrets-stay-out-of-the-record.

/** What a redacted value is recorded as. */
export const REDACTED = '***';

/**
 * A name that looks like it holds a secret: KEY, TOKEN, SECRET, PASSWORD, PASSWD or PASSPHRASE anywhere in
 * it, in any case. By substring on purpose: `MONKEY=1` is recorded as `MONKEY=***` — a value lost from the
 * record — rather than a key kept in it.
 */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSW(?:OR)?D|PASSPHRASE/i;
/** A long option whose name ends in one of those words (`--api-key`, `--auth-token`; not `--max-tokens`, `--key-file`). */
const SECRET_OPTION = /^--[\w-]*?(?:key|token|secret|passw(?:or)?d|passphrase)(?==|$)/i;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=/;
/** A header in a word, `x-api-key: …` or `x-api-key:…`. */
const HEADER = /^([A-Za-z][\w-]*):/;
/** A value that only names a variable (`$OPENAI_API_KEY`, `${KEY}`) holds no secret: it stays. */
const REFERENCE = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})$/;
/** The password of a URL's user information: `postgres://user:PASSWORD@host`. */
const URL_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:([^\s@/]+)@/dgi;
/** How deep quoted command lines inside quoted command lines are read (`sh -c "env -S '…'"`). */
const MAX_DEPTH = 8;

/** Whether a value that follows a secret's name is redacted: not when empty or only a variable reference. */
const secretValue = (value: string | undefined): value is string => value !== undefined && value !== '' && !REFERENCE.test(value);

/**
 * The spans of each word's value that hold a secret: the value of a secret-named assignment (`NAME=…`, in
 * any position: after `env`, `export`, `docker run -e`), of a secret-named long option (`--api-key=…`,
 * `--api-key …`) or header (`x-api-key: …`), the word after `Bearer`, a URL's password; and inside a word
 * holding a command line of its own (`sh -c '…'`, `env -S '…'`, any word with a blank), the same again.
 */
function wordSecrets(words: readonly ShellWord[], depth: number): Span[][] {
  const values = words.map((word) => word.value);
  const spans = values.map((): Span[] => []);
  const whole = (index: number): void => {
    const value = values[index];
    if (secretValue(value)) spans[index]?.push({ from: 0, to: value.length });
  };
  values.forEach((value, index) => {
    const own = spans[index] as Span[];
    const after = (at: number): void => {
      if (secretValue(value.slice(at))) own.push({ from: at, to: value.length });
    };
    const assignment = ASSIGNMENT.exec(value);
    // `'KEY=… cmd'` quoted whole is no assignment but a command line (`sh -c '…'`), read below.
    if (assignment !== null && unquoted(words[index] as ShellWord, assignment[0].length) && SECRET_NAME.test(assignment[1] as string))
      after(assignment[0].length);
    const option = SECRET_OPTION.exec(value)?.[0];
    if (option !== undefined) {
      if (value.length > option.length) after(option.length + 1);
      else if (!values[index + 1]?.startsWith('-')) whole(index + 1);
    }
    const header = HEADER.exec(value);
    if (header !== null && SECRET_NAME.test(header[1] as string)) {
      const rest = value.slice(header[0].length).trimStart();
      if (rest === '') whole(index + 1);
      else after(value.length - rest.length);
    }
    if (/^bearer$/i.test(value)) whole(index + 1);
    for (const match of value.matchAll(URL_PASSWORD)) {
      const [from, to] = match.indices?.[1] ?? [0, 0];
      own.push({ from, to });
    }
    if (depth < MAX_DEPTH && /\s/.test(value)) own.push(...secretSpans(value, depth + 1));
  });
  return spans;
}

/** The spans of a command line that hold secrets (see {@link wordSecrets}). */
function secretSpans(source: string, depth = 0): Span[] {
  return spansOf(source, (words) => wordSecrets(words, depth));
}

/**
 * A command line as it may be recorded: the values of secret-named environment assignments (`*KEY*`,
 * `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, any case, wherever they stand), of secret-named long options and
 * headers, bearer tokens and URL passwords replaced by `***`, inside quoted command lines too. Quotes
 * and everything else stay as written; a value that only names a variable (`$OPENAI_API_KEY`) stays.
 * @example redactCommand(`OPENAI_API_KEY=sk-abc codex exec "fix"`) // 'OPENAI_API_KEY=*** codex exec "fix"'
 * @example redactCommand(`sh -c 'env GH_TOKEN="ghp x" gh pr list'`) // `sh -c 'env GH_TOKEN="***" gh pr list'`
 */
export function redactCommand(command: string): string {
  return replaceSpans(command, secretSpans(command), REDACTED);
}

/** An argv array as it may be recorded: each argument redacted as the words of {@link redactCommand}. */
export function redactArgv(argv: readonly string[]): string[] {
  const secrets = wordSecrets(argvWords(argv), 0);
  return argv.map((arg, index) => replaceSpans(arg, mergedSpans(secrets[index] ?? []), REDACTED));
}

/** A command line or argv array as one line to record (a proposer's or judge's name): redacted, argv joined by spaces. */
export function recordedCommand(command: string | readonly string[]): string {
  return typeof command === 'string' ? redactCommand(command) : redactArgv(command).join(' ');
}

/** Whether a command line or argv holds a value {@link redactCommand} redacts (a recorded `***` counts). */
export function holdsSecrets(command: string | readonly string[]): boolean {
  return typeof command === 'string'
    ? secretSpans(command).length > 0
    : wordSecrets(argvWords(command), 0).some((spans) => spans.length > 0);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a member of a JSON value is a command: `command`, holding a command line or an argv array. */
const isCommand = (key: string, item: unknown): item is string | readonly string[] =>
  key === 'command' && (typeof item === 'string' || (Array.isArray(item) && item.every((arg) => typeof arg === 'string')));

/** A command redacted: the same string or array when nothing in it is a secret. */
function redactedCommand(command: string | readonly string[]): string | readonly string[] {
  if (typeof command === 'string') return redactCommand(command);
  const argv = redactArgv(command);
  return argv.every((arg, index) => arg === command[index]) ? command : argv;
}

/**
 * A JSON value (a mission) with every `command` member redacted by {@link redactCommand} or
 * {@link redactArgv}: the value itself when none holds a secret.
 */
export function redactCommands<T>(value: T): T {
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => redactCommands(item));
    return (items.some((item, index) => item !== value[index]) ? items : value) as T;
  }
  if (!isRecord(value)) return value;
  let changed = false;
  const entries = Object.entries(value).map(([key, item]): [string, unknown] => {
    const redacted = isCommand(key, item) ? redactedCommand(item) : redactCommands(item);
    changed ||= redacted !== item;
    return [key, redacted];
  });
  return (changed ? Object.fromEntries(entries) : value) as T;
}

/** Whether any `command` member of a JSON value (a recorded mission) holds a secret, or a recorded `***` in its place. */
export function commandsHoldSecrets(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => commandsHoldSecrets(item));
  if (!isRecord(value)) return false;
  return Object.entries(value).some(([key, item]) => (isCommand(key, item) ? holdsSecrets(item) : commandsHoldSecrets(item)));
}
