import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeState, encodeState, readStateFile, writeStateFile } from '../../src/workspace/state-file.js';
import { tempBase } from './tree.js';

// A workspace's state file: a format line, a line of JSON, the numbers of its Float64Arrays as raw
// doubles. Read back exactly as written; anything else (another format, damage, a planted reference)
// refused with a TypeError that names it.

/** Any double, -0 and NaN included: stored as bytes, each comes back as it was. */
const anyDouble = fc.double();
const anyText = fc.string({ unit: 'binary', maxLength: 20 });

describe('state files: read back as written', () => {
  it('objects holding Float64Arrays at any depth, and text of any kind in the JSON line', () => {
    fc.assert(
      fc.property(
        fc.array(anyDouble, { maxLength: 50 }),
        fc.array(anyDouble, { maxLength: 7 }),
        fc.array(anyText, { maxLength: 10 }),
        (first, second, texts) => {
          const value = {
            version: 3,
            texts,
            stamps: { paths: texts, numbers: Float64Array.from(first) },
            nested: {
              deeper: { numbers: Float64Array.from(second) },
              list: [
                ['a', null],
                ['b', { type: 'dir', mode: 0o755 }],
              ],
            },
          };
          const read = decodeState(encodeState(value)) as typeof value;
          assert.deepEqual(read.texts, texts);
          assert.deepEqual(read.nested.list, value.nested.list);
          // Bit for bit: -0 stays -0, NaN stays NaN.
          assert.ok(read.stamps.numbers instanceof Float64Array);
          assert.deepEqual(
            Buffer.from(read.stamps.numbers.buffer, read.stamps.numbers.byteOffset, read.stamps.numbers.byteLength),
            Buffer.from(value.stamps.numbers.buffer),
          );
          assert.deepEqual(
            [...read.nested.deeper.numbers].map((n) => (Object.is(n, -0) ? '-0' : String(n))),
            second.map((n) => (Object.is(n, -0) ? '-0' : String(n))),
          );
        },
      ),
    );
  });

  it('bytes that do not start on an eight-byte boundary in memory are read as well', () => {
    const bytes = encodeState({ numbers: Float64Array.from([1.5, 1712345678901.123, -3]) });
    const shifted = Buffer.alloc(bytes.length + 3);
    bytes.copy(shifted, 3);
    assert.deepEqual([...(decodeState(shifted.subarray(3)) as { numbers: Float64Array }).numbers], [1.5, 1712345678901.123, -3]);
  });

  it('is written whole or not at all, and read back from its file', () => {
    const { dir, remove } = tempBase(`state-file-${process.pid}`);
    try {
      const file = path.join(dir, 'copy.state');
      writeStateFile(file, { version: 3, numbers: Float64Array.from([4, 5]) });
      writeStateFile(file, { version: 3, numbers: Float64Array.from([6]) });
      assert.deepEqual(readdirSync(dir), ['copy.state']);
      assert.deepEqual([...(readStateFile(file) as { numbers: Float64Array }).numbers], [6]);
      assert.throws(() => readStateFile(path.join(dir, 'gone.state')), /ENOENT/);
      assert.equal(existsSync(`${file}.partial`), false);
    } finally {
      remove();
    }
  });
});

/** A state file's bytes with its JSON line replaced by what `edit` makes of it (the numbers kept). */
function withHeader(bytes: Buffer, edit: (header: Record<string, unknown>) => unknown): Buffer {
  const start = bytes.indexOf(10) + 1;
  const end = bytes.indexOf(10, start);
  const header = JSON.stringify(edit(JSON.parse(bytes.toString('utf8', start, end)) as Record<string, unknown>));
  // Padded to keep the numbers on an eight-byte boundary.
  const pad = (8 - ((start + Buffer.byteLength(header) + 1) % 8)) % 8;
  return Buffer.concat([bytes.subarray(0, start), Buffer.from(`${header}${' '.repeat(pad)}\n`), bytes.subarray(end + 1)]);
}

describe('state files: refused, naming what is wrong', () => {
  const good = (): Buffer => encodeState({ version: 3, a: Float64Array.from([1, 2]), b: { c: Float64Array.from([3]) } });
  const refusals: { readonly what: string; readonly bytes: () => Buffer; readonly names: RegExp }[] = [
    { what: 'JSON as an earlier version wrote it', bytes: () => Buffer.from('{"version":2,"stamps":{}}'), names: /another format/ },
    { what: 'an empty file', bytes: () => Buffer.alloc(0), names: /another format/ },
    { what: 'the JSON line cut short', bytes: () => good().subarray(0, 30), names: /cut short/ },
    {
      what: 'the numbers cut short',
      bytes: () => good().subarray(0, good().length - 4),
      names: /Expected 24 bytes of stored arrays .* got 20/,
    },
    {
      what: 'bytes to spare',
      bytes: () => Buffer.concat([good(), Buffer.alloc(8)]),
      names: /Expected 24 bytes of stored arrays .* got 32/,
    },
    { what: 'a JSON line that is not JSON', bytes: () => Buffer.from('redline-state 3\n{"endian":\n'), names: /line of JSON/ },
    { what: 'another byte order', bytes: () => withHeader(good(), (h) => ({ ...h, endian: 'XX' })), names: /machine, got "XX"/ },
    {
      what: 'lengths that are not counts',
      bytes: () => withHeader(good(), (h) => ({ ...h, arrays: [2, -1] })),
      names: /listed by their lengths/,
    },
    {
      what: 'a reference to no stored array',
      bytes: () => withHeader(good(), (h) => ({ ...h, value: { a: { $f64: 5 }, b: { c: { $f64: 1 } } } })),
      names: /reference to one of the 2 stored arrays, used once, got 5/,
    },
    {
      what: 'one array referenced twice',
      bytes: () => withHeader(good(), (h) => ({ ...h, value: { a: { $f64: 0 }, b: { c: { $f64: 0 } } } })),
      names: /used once, got 0/,
    },
    {
      what: 'a stored array referenced nowhere',
      bytes: () => withHeader(good(), (h) => ({ ...h, value: { a: { $f64: 0 } } })),
      names: /every stored array to be referenced, got 1 not/,
    },
  ];
  for (const { what, bytes, names } of refusals)
    it(what, () => {
      assert.throws(
        () => decodeState(bytes()),
        (error: unknown) => error instanceof TypeError && names.test(error.message),
      );
    });

  it('a file written in place of a state file by hand (text) is refused too', () => {
    const { dir, remove } = tempBase(`state-file-text-${process.pid}`);
    try {
      writeFileSync(path.join(dir, 'snapshot.state'), JSON.stringify({ version: 3 }));
      assert.throws(() => readStateFile(path.join(dir, 'snapshot.state')), /another format/);
      assert.ok(readFileSync(path.join(dir, 'snapshot.state')).length > 0);
    } finally {
      remove();
    }
  });
});
