// What reaches the terminal: untrusted text spelled out (`clean`, from core), JSON lines, and the last line of defence.

import { clean, spelled, unsafe } from '../core/untrusted-text.js';

export { clean, unsafe };

/** One line of JSON; JSON.stringify leaves DEL, C1 and bidi controls raw, so they become `\uXXXX` too. */
export function jsonLine(value: unknown): string {
  let out = '';
  for (const char of JSON.stringify(value) ?? 'null') {
    const code = char.codePointAt(0) as number;
    out += code >= 0x7f && unsafe(code) ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return out;
}

/** The SGR codes of redline's own styling: bold, red, green. */
export type Style = 1 | 31 | 32;

/** Exactly the sequences a {@link painter} writes: a style, or the reset after it. */
const OWN_STYLES: readonly string[] = [0, 1, 31, 32].map((code) => `\x1b[${code}m`);

/**
 * What the CLI writes to stdout and stderr, whatever it is: the last line of defence behind `clean` and
 * `jsonLine`, so a print that forgot them still cannot act on the terminal. Newlines and the painter's own
 * styles stay; every other unsafe character is spelled out — from DEL up as `\uXXXX`, so a JSON line
 * stays JSON.
 */
export function terminalText(text: string): string {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const code = text.codePointAt(index) as number;
    const char = String.fromCodePoint(code);
    const style = code === 0x1b ? OWN_STYLES.find((sequence) => text.startsWith(sequence, index)) : undefined;
    if (style !== undefined) out += style;
    else out += code === 0x0a || !unsafe(code) ? char : code < 0x7f ? spelled(code) : `\\u${code.toString(16).padStart(4, '0')}`;
    index += style?.length ?? char.length;
  }
  return out;
}

/** Styles text when stdout is a terminal that takes colors, or `FORCE_COLOR` asks for them; plain text otherwise. */
export function painter(): (style: Style, text: string) => string {
  const force = process.env.FORCE_COLOR;
  const color =
    force !== undefined && force !== '' ? force !== '0' && force !== 'false' : process.stdout.isTTY === true && process.stdout.hasColors();
  return color ? (style, text) => `\x1b[${style}m${text}\x1b[0m` : (_style, text) => text;
}

/** `text` as one POSIX shell word (quoted only when it needs to be), for commands printed to copy. */
export const shellArg = (text: string): string => (/^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);
