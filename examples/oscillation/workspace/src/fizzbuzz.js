/**
 * FizzBuzz: the numbers 1..n as strings, with multiples of 3 replaced by "Fizz", multiples of 5 by
 * "Buzz" and multiples of both by "FizzBuzz".
 * @param {number} n a non-negative integer
 * @returns {string[]} n entries; empty for 0
 */
export function fizzbuzz(n) {
  throw new Error('not implemented');
}
