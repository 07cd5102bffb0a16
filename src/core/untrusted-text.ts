// The one place untrusted text (agent output, file names, test names, mission text) is made safe to show:
// the CLI's terminal text and the MCP server's answers to an agent both spell out what it could act with.

/**
 * Bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and zero-width characters
 * (U+200B–U+200D, U+2060, U+FEFF): they reorder or hide text, so what a reader sees differs from what a
 * compiler reads (Trojan Source).
 */
export function invisible(code: number): boolean {
  return (
    code === 0x061c ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    code === 0x2060 ||
    code === 0xfeff
  );
}

/** C0/C1 controls, DEL, line/paragraph separators and {@link invisible} characters: characters that act on a terminal or hide text. */
export function unsafe(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || invisible(code);
}

/** Whether `text` holds a character {@link unsafe} other than tab, line feed or carriage return: a line a reader should be warned about. */
export function hidesText(text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code !== 9 && code !== 10 && code !== 13 && unsafe(code)) return true;
  }
  return false;
}

const NAMED: Readonly<Record<number, string>> = { 9: '\\t', 10: '\\n', 13: '\\r' };

/** A control character below DEL as `\t`, `\n`, `\r` or `\xNN`. */
export const spelled = (code: number): string => NAMED[code] ?? `\\x${code.toString(16).padStart(2, '0')}`;

/** `text` with every unsafe character spelled out (`\x1b`, `\n`, `\u{202e}`, `\u{200b}`). */
export function clean(text: string): string {
  return cleanExcept(text);
}

/** `text` with every unsafe character spelled out but those in `keep` (by code). */
export function cleanExcept(text: string, keep?: ReadonlySet<number>): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    out += !unsafe(code) || keep?.has(code) === true ? char : code < 0x100 ? spelled(code) : `\\u{${code.toString(16)}}`;
  }
  return out;
}
