/**
 * Whether an integer is even.
 * @param {number} n an integer (negative, zero or positive)
 * @returns {boolean}
 */
export function isEven(n) {
  throw new Error('not implemented');
}
