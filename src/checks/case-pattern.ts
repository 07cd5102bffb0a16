/** Characters a regular expression reads as syntax. */
const SYNTAX = /[.*+?^${}()|[\]\\]/g;

/**
 * A matcher for test-case ids (see `InventoryCase.id`) by a pattern: `*` stands for any run of characters,
 * none included, whatever they are (spaces, ` > `, `/`, `#`), `?` for exactly one, and `\` makes the next
 * character literal (`\*`); every other character stands for itself, case-sensitively. The pattern must
 * match the whole id, so `math > *` matches every case of the `math` suite and `adds` does not match its
 * namesake `adds #2`.
 *
 * @example
 * casePattern('test/legacy/* > *')('test/legacy/old.test.js > parses > dates'); // true
 */
export function casePattern(pattern: string): (id: string) => boolean {
  const chars = Array.from(pattern);
  let source = '';
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index] as string;
    const literal = char === '\\' ? chars[index + 1] : undefined;
    if (literal !== undefined) {
      index += 1;
      source += literal.replace(SYNTAX, '\\$&');
    } else if (char === '*') source += '[\\s\\S]*';
    else if (char === '?') source += '[\\s\\S]';
    else source += char.replace(SYNTAX, '\\$&');
  }
  const expression = new RegExp(`^${source}$`, 'u');
  return (id) => expression.test(id);
}
