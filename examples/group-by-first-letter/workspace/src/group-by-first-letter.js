/**
 * Groups strings by their first letter, keeping the input order inside each group.
 * @param {string[]} strings non-empty strings
 * @returns {Record<string, string[]>} first letter → the strings that start with it
 */
export function groupByFirstLetter(strings) {
  throw new Error('not implemented');
}
