/**
 * The median of a list of numbers: the middle value once sorted, or the mean of the two middle values
 * when the list has an even length.
 * @param {number[]} numbers
 * @returns {number}
 * @throws {RangeError} for an empty list
 */
export function median(numbers) {
  throw new Error('not implemented');
}
