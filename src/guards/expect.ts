import type { Guard } from './guard.js';

/** A short description of a bad argument for a `TypeError` message: `1.5`, `"0.8"`, `an object`. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value !== null && typeof value === 'object') return 'an object';
  return String(value);
}

/** Throws a `TypeError` unless `value` is a number in `[min, max]`. */
export function expectNumber(name: string, value: number, min: number, max = Infinity): void {
  if (typeof value === 'number' && value >= min && value <= max) return;
  const range = max === Infinity ? `≥ ${min}` : `in [${min}, ${max}]`;
  throw new TypeError(`Expected \`${name}\` to be a number ${range}, got ${describe(value)}`);
}

/** Throws a `TypeError` unless `value` is an integer `≥ min`. */
export function expectInteger(name: string, value: number, min: number): void {
  if (Number.isInteger(value) && value >= min) return;
  throw new TypeError(`Expected \`${name}\` to be an integer ≥ ${min}, got ${describe(value)}`);
}

/** Throws a `TypeError` unless every item is a guard and there is at least one. */
export function expectGuards(combinator: string, guards: readonly Guard[]): void {
  if (guards.length === 0) throw new TypeError(`Expected ${combinator} to get at least one guard, got none`);
  for (const guard of guards) {
    const valid = typeof guard === 'object' && guard !== null && typeof guard.evaluate === 'function';
    if (!valid) throw new TypeError(`Expected ${combinator} to get guards, got ${describe(guard)}`);
  }
}
