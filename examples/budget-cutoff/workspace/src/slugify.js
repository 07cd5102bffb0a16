/**
 * Turns a title into a URL slug: lower case, runs of anything but letters and digits become one "-",
 * no leading or trailing "-".
 * @param {string} title
 * @returns {string}
 */
export function slugify(title) {
  throw new Error('not implemented');
}
