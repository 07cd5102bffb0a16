// The one place untrusted text (agent output, file names, test names, mission text) is made safe for a terminal.

/** C0/C1 controls, DEL, line/paragraph separators and bidi controls: characters that act on a terminal or hide text. */
export function unsafe(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x200e || code === 0x200f || code === 0x2028 || code === 0x2029 || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

const NAMED: Readonly<Record<number, string>> = { 9: '\\t', 10: '\\n', 13: '\\r' };

/** `text` with every unsafe character spelled out (`\x1b`, `\n`, `\u{202e}`). */
export function clean(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    out += !unsafe(code) ? char : (NAMED[code] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`));
  }
  return out;
}

/** One line of JSON; JSON.stringify leaves DEL, C1 and bidi controls raw, so they become `\uXXXX` too. */
export function jsonLine(value: unknown): string {
  let out = '';
  for (const char of JSON.stringify(value) ?? 'null') {
    const code = char.codePointAt(0) as number;
    out += code >= 0x7f && unsafe(code) ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return out;
}

/** `text` as one POSIX shell word (quoted only when it needs to be), for commands printed to copy. */
export const shellArg = (text: string): string => (/^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);
