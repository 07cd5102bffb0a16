/** The longest string attribute a span carries, in UTF-16 code units: longer text is cut and marked `…`. */
export const MAX_ATTRIBUTE_LENGTH = 1024;

/** The characters `unsafe` (src/core/untrusted-text.ts) names, as one pattern: controls, separators, bidi controls, zero-width characters. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

const spelled = (char: string): string => {
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
};

/**
 * Untrusted text (a mission id, a check name, a guard's detail) as an attribute value: unsafe characters
 * spelled out (`\x1b`, `\u{202e}`), cut to {@link MAX_ATTRIBUTE_LENGTH} without splitting a surrogate pair.
 * Only the head of a long text is scanned, so 100 KB of it costs what 1 KB does.
 */
export function attributeText(text: string): string {
  const head = text.slice(0, MAX_ATTRIBUTE_LENGTH + 1).replace(UNSAFE, spelled);
  if (head.length <= MAX_ATTRIBUTE_LENGTH && text.length <= MAX_ATTRIBUTE_LENGTH) return head;
  const cut = head.slice(0, MAX_ATTRIBUTE_LENGTH - 1);
  const last = cut.charCodeAt(cut.length - 1);
  return `${last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut}…`;
}
