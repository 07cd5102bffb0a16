import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { BlobSlot } from '../../src/workspace/blob-pack.js';
import type { ManifestEntry } from '../../src/workspace/manifest.js';
import type { Stamp } from '../../src/workspace/stamp.js';
import { manifestColumns, manifestFrom, slotColumns, slotsFrom, stampColumns, stampsFrom } from '../../src/workspace/state-columns.js';
import { decodeState, encodeState } from '../../src/workspace/state-file.js';

// The state files' maps stored as columns: read back as they were written (order kept), and damage of
// any kind refused with a TypeError that names it.

/** Any path a tree may hold, and odder ones: the root (''), NULs, lone surrogates, newlines. */
const anyPath = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('', 'a/b/c', 'dir with space/x\n', '\0', '\ud800'));
/** A time as `lstat` gives it (never -0, which a state file's JSON writes as 0). */
const anyTime = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }).map((value) => value + 0);
const anyMode = fc.integer({ min: 0, max: 0o7777 });
/** Records as the readers make them: plain objects. */
const plain = { noNullPrototype: true } as const;

const stamp: fc.Arbitrary<Stamp> = fc.record(
  {
    kind: fc.constantFrom('file' as const, 'dir' as const, 'symlink' as const, 'other' as const),
    ino: fc.maxSafeNat(),
    size: fc.maxSafeNat(),
    mtimeMs: anyTime,
    ctimeMs: anyTime,
    mode: anyMode,
  },
  plain,
);

const entry: fc.Arbitrary<ManifestEntry> = fc.oneof(
  fc.record(
    {
      type: fc.constant('file' as const),
      mode: anyMode,
      size: fc.maxSafeNat(),
      hash: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString('hex')),
    },
    plain,
  ),
  fc.record({ type: fc.constant('dir' as const), mode: anyMode }, plain),
  fc.record({ type: fc.constant('symlink' as const), target: fc.string({ unit: 'binary', maxLength: 20 }) }, plain),
);

const slot: fc.Arbitrary<BlobSlot> = fc.record({ offset: fc.maxSafeNat(), size: fc.maxSafeNat() }, plain);

/** Pairs with distinct keys, in the order drawn. */
const pairs = <T>(value: fc.Arbitrary<T>): fc.Arbitrary<[string, T][]> =>
  fc.uniqueArray(fc.tuple(anyPath, value), { selector: ([key]) => key, maxLength: 40 });

/** Through the bytes a state file holds (its JSON line, the stamps' numbers as doubles). */
const throughStateFile = (value: unknown): unknown => decodeState(encodeState(value as object));

describe('state columns: read back as written', () => {
  it('stamps, in their order', () => {
    fc.assert(
      fc.property(pairs(stamp), (stamps) => {
        const read = stampsFrom(throughStateFile(stampColumns(new Map(stamps))));
        assert.deepEqual([...read], stamps);
        // The same shape as `stampOf` makes, key order included.
        for (const [, value] of read) assert.deepEqual(Object.keys(value), ['kind', 'ino', 'size', 'mtimeMs', 'ctimeMs', 'mode']);
      }),
    );
  });

  it('manifests with files, directories and symlinks, in their order', () => {
    fc.assert(
      fc.property(pairs(entry), (entries) => {
        const read = manifestFrom(throughStateFile(manifestColumns(new Map(entries))));
        assert.deepEqual([...read], entries);
        assert.equal(JSON.stringify([...read]), JSON.stringify(entries));
      }),
    );
  });

  it('blob slots, in their order', () => {
    fc.assert(
      fc.property(pairs(slot), (slots) => {
        assert.deepEqual([...slotsFrom(throughStateFile(slotColumns(slots)))], slots);
      }),
    );
  });

  it('empty maps', () => {
    assert.deepEqual(stampsFrom(throughStateFile(stampColumns([]))), new Map());
    assert.deepEqual(manifestFrom(throughStateFile(manifestColumns(new Map()))), new Map());
    assert.deepEqual(slotsFrom(throughStateFile(slotColumns([]))), new Map());
  });
});

/** Stamps as columns, their numbers as a state file stores them. */
const stampNumbers = (): { paths: string[]; numbers: Float64Array } =>
  throughStateFile(
    stampColumns([
      ['a', { kind: 'file', ino: 11, size: 3, mtimeMs: 1712.5, ctimeMs: 1713.25, mode: 0o644 }],
      ['b', { kind: 'dir', ino: 12, size: 4096, mtimeMs: 1714, ctimeMs: 1715, mode: 0o755 }],
    ]),
  ) as { paths: string[]; numbers: Float64Array };
/** Columns to damage, a fresh copy each time: the numbers as the JSON of a planted file could hold them. */
const stamps = (): Record<string, unknown[]> => {
  const { paths, numbers } = stampNumbers();
  return { paths, numbers: [...numbers] };
};
const manifest = (): Record<string, unknown[]> =>
  throughStateFile(
    manifestColumns(
      new Map<string, ManifestEntry>([
        ['a', { type: 'file', mode: 0o644, size: 3, hash: 'f'.repeat(64) }],
        ['b', { type: 'dir', mode: 0o755 }],
        ['c', { type: 'symlink', target: 'a' }],
      ]),
    ),
  ) as Record<string, unknown[]>;
const slots = (): Record<string, unknown[]> =>
  throughStateFile(
    slotColumns([
      ['f'.repeat(64), { offset: 0, size: 3 }],
      ['e'.repeat(64), { offset: 3, size: 5 }],
    ]),
  ) as Record<string, unknown[]>;

/** A damaged copy of some columns. */
function damaged(columns: Record<string, unknown[]>, damage: (columns: Record<string, unknown[]>) => void): Record<string, unknown[]> {
  damage(columns);
  return columns;
}

const refusals: { readonly what: string; readonly read: () => unknown; readonly names: RegExp }[] = [
  {
    what: 'stored numbers one short',
    read: () => stampsFrom({ ...stampNumbers(), numbers: stampNumbers().numbers.subarray(1) }),
    names: /stamps\.numbers to hold 12 items \(6 per path\), got 11/,
  },
  {
    what: 'a stored kind code out of range',
    read: () => {
      const columns = stampNumbers();
      columns.numbers[6] = 7;
      return stampsFrom(columns);
    },
    names: /stamps\.numbers\[6\] to be a kind code \(0 to 3\), got 7/,
  },
  { what: 'no object', read: () => stampsFrom(null), names: /stamps stored as columns .* got null/ },
  {
    what: 'an array of pairs (the layout before columns)',
    read: () => stampsFrom([['a', {}]]),
    names: /stamps stored as columns .* got an array/,
  },
  {
    what: 'a missing column',
    read: () => stampsFrom(damaged(stamps(), (c) => delete c.paths)),
    names: /stamps\.paths to be an array, got nothing/,
  },
  {
    what: 'a column of another type',
    read: () => stampsFrom({ ...stamps(), numbers: 'many' }),
    names: /stamps\.numbers to be an array, got "many"/,
  },
  {
    what: 'too few numbers',
    read: () => stampsFrom(damaged(stamps(), (c) => c.numbers?.pop())),
    names: /stamps\.numbers to hold 12 items \(6 per path\), got 11/,
  },
  {
    what: 'too many numbers',
    read: () => stampsFrom(damaged(stamps(), (c) => c.numbers?.push(0))),
    names: /stamps\.numbers to hold 12 items \(6 per path\), got 13/,
  },
  {
    what: 'an unknown kind code',
    read: () => stampsFrom(damaged(stamps(), (c) => c.numbers?.splice(6, 1, 4))),
    names: /stamps\.numbers\[6\] to be a kind code \(0 to 3\), got 4/,
  },
  {
    what: 'a kind code as text',
    read: () => stampsFrom(damaged(stamps(), (c) => c.numbers?.splice(0, 1, '1'))),
    names: /stamps\.numbers\[0\] to be a kind code \(0 to 3\), got "1"/,
  },
  {
    what: 'an inode number as text',
    read: () => stampsFrom(damaged(stamps(), (c) => c.numbers?.splice(1, 1, '11'))),
    names: /stamps\.numbers\[1\] to be a whole number, not negative, got "11"/,
  },
  {
    what: 'a negative size',
    read: () => stampsFrom(damaged(stamps(), (c) => c.numbers?.splice(2, 1, -3))),
    names: /stamps\.numbers\[2\] to be a whole number, not negative, got -3/,
  },
  {
    what: 'a time that is null',
    read: () => stampsFrom(damaged(stamps(), (c) => c.numbers?.splice(9, 1, null))),
    names: /stamps\.numbers\[9\] to be a time, got null/,
  },
  {
    what: 'a mode out of range',
    read: () => stampsFrom(damaged(stamps(), (c) => c.numbers?.splice(11, 1, 0o10000))),
    names: /stamps\.numbers\[11\] to be a mode \(0 to 0o7777\), got 4096/,
  },
  {
    what: 'a path that is no string',
    read: () => stampsFrom(damaged(stamps(), (c) => c.paths?.splice(1, 1, 7))),
    names: /stamps\.paths\[1\] to be a string, got 7/,
  },
  {
    what: 'a path named twice',
    read: () => stampsFrom(damaged(stamps(), (c) => c.paths?.splice(1, 1, 'a'))),
    names: /stamps\.paths to name each path once, got "a" twice/,
  },
  {
    what: 'an unknown type code',
    read: () => manifestFrom(damaged(manifest(), (c) => c.types?.splice(2, 1, 3))),
    names: /manifest\.types\[2\] to be a type code \(0 to 2\), got 3/,
  },
  {
    what: 'a type code as text',
    read: () => manifestFrom(damaged(manifest(), (c) => c.types?.splice(0, 1, '0'))),
    names: /manifest\.types\[0\] to be a type code \(0 to 2\), got "0"/,
  },
  {
    what: 'a type column too short',
    read: () => manifestFrom(damaged(manifest(), (c) => c.types?.pop())),
    names: /manifest\.types to hold 3 items \(one per path\), got 2/,
  },
  {
    what: 'a missing text column',
    read: () => manifestFrom(damaged(manifest(), (c) => delete c.texts)),
    names: /manifest\.texts to be an array, got nothing/,
  },
  {
    what: 'a text column too long',
    read: () => manifestFrom(damaged(manifest(), (c) => c.texts?.push(''))),
    names: /manifest\.texts to hold 3 items \(one per path\), got 4/,
  },
  {
    what: 'a hash that is no string',
    read: () => manifestFrom(damaged(manifest(), (c) => c.texts?.splice(0, 1, 12))),
    names: /manifest\.texts\[0\] to be a string, got 12/,
  },
  {
    what: 'a directory with a text',
    read: () => manifestFrom(damaged(manifest(), (c) => c.texts?.splice(1, 1, 'x'))),
    names: /manifest\.texts\[1\] to be '' for a directory, got "x"/,
  },
  {
    what: 'a mode as text',
    read: () => manifestFrom(damaged(manifest(), (c) => c.modes?.splice(0, 1, '644'))),
    names: /manifest\.modes\[0\] to be a mode \(0 to 0o7777\), got "644"/,
  },
  {
    what: 'a fractional size',
    read: () => manifestFrom(damaged(manifest(), (c) => c.sizes?.splice(0, 1, 2.5))),
    names: /manifest\.sizes\[0\] to be a whole number, not negative, got 2\.5/,
  },
  {
    what: 'a manifest path named twice',
    read: () => manifestFrom(damaged(manifest(), (c) => c.paths?.splice(2, 1, 'b'))),
    names: /manifest\.paths to name each path once, got "b" twice/,
  },
  {
    what: 'slot numbers of odd length',
    read: () => slotsFrom(damaged(slots(), (c) => c.numbers?.pop())),
    names: /slots\.numbers to hold 4 items \(2 per hash\), got 3/,
  },
  {
    what: 'an offset that is no number',
    read: () => slotsFrom(damaged(slots(), (c) => c.numbers?.splice(2, 1, {}))),
    names: /slots\.numbers\[2\] to be a whole number, not negative, got an object/,
  },
  {
    what: 'a missing hash column',
    read: () => slotsFrom(damaged(slots(), (c) => delete c.hashes)),
    names: /slots\.hashes to be an array, got nothing/,
  },
  {
    what: 'a hash that is no string',
    read: () => slotsFrom(damaged(slots(), (c) => c.hashes?.splice(0, 1, null))),
    names: /slots\.hashes\[0\] to be a string, got null/,
  },
  {
    what: 'a hash named twice',
    read: () => slotsFrom(damaged(slots(), (c) => c.hashes?.splice(1, 1, 'f'.repeat(64)))),
    names: /slots\.hashes to name each hash once, got "f{40}…" twice/,
  },
];

describe('state columns: damage is refused, named', () => {
  for (const { what, read, names } of refusals) {
    it(what, () => {
      assert.throws(read, (error: unknown) => {
        assert.ok(error instanceof TypeError, `a TypeError, got ${String(error)}`);
        assert.match(error.message, names);
        return true;
      });
    });
  }

  it('the undamaged columns read well (the cases above damage nothing else)', () => {
    assert.equal(stampsFrom(stamps()).size, 2);
    assert.equal(manifestFrom(manifest()).size, 3);
    assert.equal(slotsFrom(slots()).size, 2);
  });
});
