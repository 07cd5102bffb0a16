import type { BlobSlot } from './blob-pack.js';
import type { ManifestEntry } from './manifest.js';
import type { Stamp } from './stamp.js';

// The maps a workspace's state files hold (stamps, manifest entries, blob slots), stored as columns: one
// array per field instead of one array or object per path, which JSON reads and writes several times
// faster for a large tree. A file read back may be damaged or planted: every reader checks what it reads
// and throws a TypeError naming what is wrong, and its caller then holds no usable state.

/** Stamps by path, in the map's order: per path six numbers (kind code, ino, size, mtimeMs, ctimeMs, mode). */
export interface StampColumns {
  readonly paths: string[];
  /** Kind codes: 0 file, 1 directory, 2 symlink, 3 other. Stored as doubles (see state-file.ts). */
  readonly numbers: Float64Array;
}

/** Manifest entries by path, in the manifest's order. */
export interface ManifestColumns {
  readonly paths: string[];
  /** 0 file, 1 directory, 2 symlink. */
  readonly types: number[];
  /** A file's or directory's mode; 0 for a symlink. */
  readonly modes: number[];
  /** A file's size; 0 for a directory or symlink. */
  readonly sizes: number[];
  /** A file's content hash, a symlink's target; '' for a directory. */
  readonly texts: string[];
}

/** Blob slots by content hash, in the pack index's order: per blob two numbers (offset, size). */
export interface SlotColumns {
  readonly hashes: string[];
  readonly numbers: number[];
}

/** Numbers per stamp in {@link StampColumns}. */
export const STAMP_WIDTH = 6;
const SLOT_WIDTH = 2;
const KINDS: readonly Stamp['kind'][] = ['file', 'dir', 'symlink', 'other'];
const KIND_CODES: Readonly<Record<Stamp['kind'], number>> = { file: 0, dir: 1, symlink: 2, other: 3 };
const FILE = 0;
const DIR = 1;
const SYMLINK = 2;
const MAX_MODE = 0o7777;

/** Puts a stamp's six numbers at `at`. */
function putStamp(numbers: Float64Array, at: number, stamp: Stamp): void {
  numbers[at] = KIND_CODES[stamp.kind];
  numbers[at + 1] = stamp.ino;
  numbers[at + 2] = stamp.size;
  numbers[at + 3] = stamp.mtimeMs;
  numbers[at + 4] = stamp.ctimeMs;
  numbers[at + 5] = stamp.mode;
}

/** Stamps (a map's entries, or pairs) as columns. */
export function stampColumns(entries: Iterable<readonly [string, Stamp]>): StampColumns {
  const paths: string[] = [];
  const stamps: Stamp[] = [];
  for (const [file, stamp] of entries) {
    paths.push(file);
    stamps.push(stamp);
  }
  const numbers = new Float64Array(stamps.length * STAMP_WIDTH);
  putStampNumbers(stamps, numbers);
  return { paths, numbers };
}

/** The numbers column of {@link stampColumns} for `stamps`, written into `into` (six per stamp). */
export function putStampNumbers(stamps: readonly Stamp[], into: Float64Array): void {
  for (let index = 0; index < stamps.length; index += 1) putStamp(into, index * STAMP_WIDTH, stamps[index] as Stamp);
}

/** A manifest as columns. */
export function manifestColumns(manifest: Iterable<readonly [string, ManifestEntry]>): ManifestColumns {
  const columns: ManifestColumns = { paths: [], types: [], modes: [], sizes: [], texts: [] };
  for (const [file, entry] of manifest) {
    columns.paths.push(file);
    switch (entry.type) {
      case 'file':
        columns.types.push(FILE);
        columns.modes.push(entry.mode);
        columns.sizes.push(entry.size);
        columns.texts.push(entry.hash);
        break;
      case 'dir':
        columns.types.push(DIR);
        columns.modes.push(entry.mode);
        columns.sizes.push(0);
        columns.texts.push('');
        break;
      case 'symlink':
        columns.types.push(SYMLINK);
        columns.modes.push(0);
        columns.sizes.push(0);
        columns.texts.push(entry.target);
        break;
    }
  }
  return columns;
}

/** A pack's blob slots as columns. */
export function slotColumns(slots: Iterable<readonly [string, BlobSlot]>): SlotColumns {
  const hashes: string[] = [];
  const numbers: number[] = [];
  for (const [hash, slot] of slots) {
    hashes.push(hash);
    numbers.push(slot.offset, slot.size);
  }
  return { hashes, numbers };
}

/**
 * The stamps {@link stampColumns} stored, in their order.
 * @throws {TypeError} naming what is wrong when `value` is not such columns.
 */
export function stampsFrom(value: unknown): Map<string, Stamp> {
  const columns = columnsOf(value, 'stamps');
  const paths = strings(columns, 'paths', 'stamps');
  const numbers = column(columns, 'numbers', 'stamps', paths.length * STAMP_WIDTH, `${STAMP_WIDTH} per path`);
  const stamps = new Map<string, Stamp>();
  for (let index = 0; index < paths.length; index += 1) {
    const at = index * STAMP_WIDTH;
    const code = numbers[at];
    const kind = Number.isInteger(code) ? KINDS[code as number] : undefined;
    if (kind === undefined) throw new TypeError(`Expected stamps.numbers[${at}] to be a kind code (0 to 3), got ${shown(code)}`);
    stamps.set(paths[index] as string, {
      kind,
      ino: count(numbers, at + 1, 'stamps'),
      size: count(numbers, at + 2, 'stamps'),
      mtimeMs: time(numbers, at + 3, 'stamps'),
      ctimeMs: time(numbers, at + 4, 'stamps'),
      mode: mode(numbers, at + 5, 'stamps'),
    });
  }
  if (stamps.size !== paths.length) throw new TypeError(`Expected stamps.paths to name each path once, got ${repeated(paths)} twice`);
  return stamps;
}

/**
 * The manifest {@link manifestColumns} stored, in its order.
 * @throws {TypeError} naming what is wrong when `value` is not such columns.
 */
export function manifestFrom(value: unknown): Map<string, ManifestEntry> {
  const columns = columnsOf(value, 'manifest');
  const paths = strings(columns, 'paths', 'manifest');
  const types = column(columns, 'types', 'manifest', paths.length, 'one per path');
  const modes = column(columns, 'modes', 'manifest', paths.length, 'one per path');
  const sizes = column(columns, 'sizes', 'manifest', paths.length, 'one per path');
  const texts = strings(columns, 'texts', 'manifest', paths.length);
  const manifest = new Map<string, ManifestEntry>();
  for (let index = 0; index < paths.length; index += 1) {
    const file = paths[index] as string;
    const text = texts[index] as string;
    const entryMode = mode(modes, index, 'manifest', 'modes');
    const size = count(sizes, index, 'manifest', 'sizes');
    switch (types[index]) {
      case FILE:
        manifest.set(file, { type: 'file', mode: entryMode, size, hash: text });
        break;
      case DIR:
        if (text !== '') throw new TypeError(`Expected manifest.texts[${index}] to be '' for a directory, got ${shown(text)}`);
        manifest.set(file, { type: 'dir', mode: entryMode });
        break;
      case SYMLINK:
        manifest.set(file, { type: 'symlink', target: text });
        break;
      default:
        throw new TypeError(`Expected manifest.types[${index}] to be a type code (0 to 2), got ${shown(types[index])}`);
    }
  }
  if (manifest.size !== paths.length) throw new TypeError(`Expected manifest.paths to name each path once, got ${repeated(paths)} twice`);
  return manifest;
}

/**
 * The blob slots {@link slotColumns} stored, in their order.
 * @throws {TypeError} naming what is wrong when `value` is not such columns.
 */
export function slotsFrom(value: unknown): Map<string, BlobSlot> {
  const columns = columnsOf(value, 'slots');
  const hashes = strings(columns, 'hashes', 'slots');
  const numbers = column(columns, 'numbers', 'slots', hashes.length * SLOT_WIDTH, `${SLOT_WIDTH} per hash`);
  const slots = new Map<string, BlobSlot>();
  for (let index = 0; index < hashes.length; index += 1) {
    const at = index * SLOT_WIDTH;
    slots.set(hashes[index] as string, { offset: count(numbers, at, 'slots'), size: count(numbers, at + 1, 'slots') });
  }
  if (slots.size !== hashes.length) throw new TypeError(`Expected slots.hashes to name each hash once, got ${repeated(hashes)} twice`);
  return slots;
}

/** What a reader found, for its error. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === 'object' && value !== null ? 'an object' : String(value);
}

function columnsOf(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError(`Expected ${what} stored as columns (an object of arrays), got ${shown(value)}`);
  return value as Record<string, unknown>;
}

function column(columns: Record<string, unknown>, name: string, what: string, length?: number, per?: string): ArrayLike<unknown> {
  const value = columns[name];
  if (!Array.isArray(value) && !(value instanceof Float64Array))
    throw new TypeError(`Expected ${what}.${name} to be an array, got ${shown(value)}`);
  if (length !== undefined && value.length !== length)
    throw new TypeError(`Expected ${what}.${name} to hold ${length} items (${per ?? 'one per path'}), got ${value.length}`);
  return value;
}

function strings(columns: Record<string, unknown>, name: string, what: string, length?: number): string[] {
  const values = column(columns, name, what, length);
  for (let index = 0; index < values.length; index += 1)
    if (typeof values[index] !== 'string')
      throw new TypeError(`Expected ${what}.${name}[${index}] to be a string, got ${shown(values[index])}`);
  return values as string[];
}

/** A count of something (an inode number, a size, an offset): a whole number, not negative. */
function count(values: ArrayLike<unknown>, index: number, what: string, name = 'numbers'): number {
  const value = values[index];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new TypeError(`Expected ${what}.${name}[${index}] to be a whole number, not negative, got ${shown(value)}`);
  return value;
}

/** A time in milliseconds: any finite number. */
function time(values: ArrayLike<unknown>, index: number, what: string): number {
  const value = values[index];
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new TypeError(`Expected ${what}.numbers[${index}] to be a time, got ${shown(value)}`);
  return value;
}

/** Permission bits: a whole number from 0 to 0o7777. */
function mode(values: ArrayLike<unknown>, index: number, what: string, name = 'numbers'): number {
  const value = values[index];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_MODE)
    throw new TypeError(`Expected ${what}.${name}[${index}] to be a mode (0 to 0o7777), got ${shown(value)}`);
  return value;
}

/** The first path (or hash) named twice, for an error. */
function repeated(names: readonly string[]): string {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) return shown(name);
    seen.add(name);
  }
  return 'a name';
}
