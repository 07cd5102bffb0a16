// The one place untrusted text (agent output, file names, test names, mission text) is made safe to show:
// the CLI's terminal text and the MCP server's answers to an agent both spell out what it could act with.

/** C0/C1 controls, DEL, line/paragraph separators and bidi controls: characters that act on a terminal or hide text. */
export function unsafe(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

const NAMED: Readonly<Record<number, string>> = { 9: '\\t', 10: '\\n', 13: '\\r' };

/** A control character below DEL as `\t`, `\n`, `\r` or `\xNN`. */
export const spelled = (code: number): string => NAMED[code] ?? `\\x${code.toString(16).padStart(2, '0')}`;

/** `text` with every unsafe character spelled out (`\x1b`, `\n`, `\u{202e}`). */
export function clean(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    out += !unsafe(code) ? char : code < 0x100 ? spelled(code) : `\\u{${code.toString(16)}}`;
  }
  return out;
}
