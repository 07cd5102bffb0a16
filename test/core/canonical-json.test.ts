import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../src/core/canonical-json.js';

/** The definition, written plainly: what `canonicalJson` must produce, byte for byte (stored hashes depend on it). */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`Expected a finite number, got ${value}`);
    return JSON.stringify(value) ?? 'null';
  }
  // Holes of a sparse array are written as null, like undefined items: the output is always JSON.
  if (Array.isArray(value)) return `[${Array.from(value, (item: unknown) => (item === undefined ? 'null' : reference(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const entries = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${reference(record[key])}`);
  return `{${entries.join(',')}}`;
}

/** JSON values with undefined members and array items mixed in, and keys that need escaping. */
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string({ unit: 'binary' }),
    tie('array'),
    tie('object'),
  ),
  array: fc.oneof(fc.array(fc.oneof(tie('any'), fc.constant(undefined)), { maxLength: 5 }), fc.sparseArray(tie('any'), { maxLength: 5 })),
  object: fc.dictionary(
    fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('a', 'b-c', '$x', 'q"uote', 'back\\slash', 'line\nbreak', '')),
    fc.oneof(tie('any'), fc.constant(undefined)),
    { maxKeys: 6 },
  ),
})).any;

describe('canonicalJson', () => {
  it('writes exactly what the definition does, for any JSON value', () => {
    fc.assert(
      fc.property(value, (input) => {
        assert.equal(canonicalJson(input), reference(input));
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips through JSON.parse, sorted and without undefined members', () => {
    assert.equal(
      canonicalJson({ b: 1, a: [undefined, 'x', { d: undefined, c: -0 }], é: 'ü', 'q"': 1e21 }),
      '{"a":[null,"x",{"c":0}],"b":1,"q\\"":1e+21,"é":"ü"}',
    );
    assert.deepEqual(JSON.parse(canonicalJson({ z: { y: [1, 2] }, a: true })), { a: true, z: { y: [1, 2] } });
    // eslint-disable-next-line no-sparse-arrays
    assert.equal(canonicalJson([1, , 3]), '[1,null,3]');
  });

  it('refuses numbers JSON cannot hold', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])
      assert.throws(() => canonicalJson({ x: [bad] }), { name: 'TypeError', message: `Expected a finite number, got ${bad}` });
  });
});
