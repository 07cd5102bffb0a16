import { html, type Html } from './html.js';

// Server-side syntax highlighting with a tiny tokenizer: comments, strings, numbers and keywords of the
// common languages, one line at a time (a string or comment spanning lines is highlighted on its first
// line only). Every token is escaped by `html`.

const KEYWORDS = new Set(
  (
    'abstract as async await break case catch class const continue def default del delete do elif else enum export extends false ' +
    'final finally fn for from func function if impl import in instanceof interface is lambda let match mod module mut new nil none ' +
    'not null or package pass private protected pub public raise return self static struct super switch this throw true try type ' +
    'typeof undefined use var void while with yield True False None'
  ).split(' '),
);

/** Comment (`//`, `#`, `--`, `/* … *\/`), string (quoted, escapes kept), number, word, anything else. */
const TOKEN =
  /(\/\/.*|#.*|--\s.*|\/\*.*?(?:\*\/|$))|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b)|([A-Za-z_$][\w$]*)|([^"'`/#\-\dA-Za-z_$]+|.)/gy;

/** Languages whose `#` starts a comment; elsewhere `#` is plain text. */
const HASH_COMMENTS = new Set(['py', 'sh', 'bash', 'rb', 'yaml', 'yml', 'toml', 'r', 'pl', 'conf', 'ini', 'mk', 'dockerfile']);
const DASH_COMMENTS = new Set(['sql', 'lua', 'hs']);

/** The extension of a file name, lowercased (`Dockerfile` → `dockerfile`). */
export function languageOf(file: string): string {
  const base = file.split('/').at(-1) ?? file;
  const dot = base.lastIndexOf('.');
  return (dot < 0 ? base : base.slice(dot + 1)).toLowerCase();
}

/** Whether `language` is highlighted at all (plain text, Markdown and unknown files are not). */
export function highlights(language: string): boolean {
  return /^(js|mjs|cjs|jsx|ts|mts|cts|tsx|py|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|swift|php|sh|bash|sql|lua|json|yaml|yml|toml|css|scala|r|dockerfile)$/.test(
    language,
  );
}

/** One line of code as highlighted markup. */
export function highlightLine(line: string, language: string): Html {
  if (!highlights(language)) return html`${line}`;
  const parts: Html[] = [];
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(line); match !== null && match[0] !== ''; match = TOKEN.exec(line)) {
    const [text, comment, string, number, word] = match;
    const hashComment = comment?.startsWith('#') === true && !HASH_COMMENTS.has(language);
    const dashComment = comment?.startsWith('--') === true && !DASH_COMMENTS.has(language);
    if (comment !== undefined && !hashComment && !dashComment) parts.push(html`<span class="tok-comment">${text}</span>`);
    else if (string !== undefined) parts.push(html`<span class="tok-string">${text}</span>`);
    else if (number !== undefined) parts.push(html`<span class="tok-number">${text}</span>`);
    else if (word !== undefined && KEYWORDS.has(word)) parts.push(html`<span class="tok-keyword">${text}</span>`);
    else if (hashComment || dashComment) {
      // Not a comment here: the first character is plain, the rest is tokenized again.
      parts.push(html`${text.slice(0, 1)}`);
      TOKEN.lastIndex = match.index + 1;
    } else parts.push(html`${text}`);
  }
  return html`${parts}`;
}
