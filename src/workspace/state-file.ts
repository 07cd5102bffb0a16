import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';

// The file a workspace's state is kept in (a cache entry's snapshot and copies, a run's saved snapshot):
// a line naming the format, a line of JSON, then the numbers of every Float64Array in the value as raw
// doubles. A stamp's times carry fractions of a millisecond: as JSON text they cost far more to write and
// read back than their eight bytes each, and a large tree has hundreds of thousands of them.

/** The version of the state files' content that this redline writes and reads (`version` in each). */
export const STATE_VERSION = 3;
const MAGIC = `redline-state ${STATE_VERSION}\n`;
/** Where the JSON names a Float64Array stored after it: `{ "$f64": index }`. */
const REFERENCE = '$f64';
const DOUBLE = Float64Array.BYTES_PER_ELEMENT;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/** `value` with each Float64Array found in its objects (not inside arrays) replaced by a reference into `arrays`. */
function referenced(value: unknown, arrays: Float64Array[]): unknown {
  if (value instanceof Float64Array) {
    arrays.push(value);
    return { [REFERENCE]: arrays.length - 1 };
  }
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, referenced(item, arrays)]));
}

/** The bytes of a state file holding `value` (see {@link decodeState}). */
export function encodeState(value: object): Buffer {
  const arrays: Float64Array[] = [];
  const stored = referenced(value, arrays);
  const text = `${MAGIC}${JSON.stringify({ endian: os.endianness(), arrays: arrays.map((array) => array.length), value: stored })}`;
  // Padded with spaces (JSON allows them) so that the numbers start on an eight-byte boundary.
  const length = Buffer.byteLength(text) + 1;
  const head = `${text}${' '.repeat((DOUBLE - (length % DOUBLE)) % DOUBLE)}\n`;
  return Buffer.concat([
    Buffer.from(head, 'utf8'),
    ...arrays.map((array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength)),
  ]);
}

/** The doubles at `start` of `bytes`, viewed where they are aligned, else copied. */
function doubles(bytes: Buffer, start: number, count: number): Float64Array {
  const offset = bytes.byteOffset + start;
  if (offset % DOUBLE === 0) return new Float64Array(bytes.buffer, offset, count);
  return new Float64Array(bytes.buffer.slice(offset, offset + count * DOUBLE));
}

/** `value` with each reference replaced by its array; every array is used exactly once. */
function resolved(value: unknown, arrays: readonly Float64Array[], used: Set<number>): unknown {
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === REFERENCE) {
    const index = value[REFERENCE];
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= arrays.length || used.has(index))
      throw new TypeError(`Expected a reference to one of the ${arrays.length} stored arrays, used once, got ${JSON.stringify(index)}`);
    used.add(index);
    return arrays[index];
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolved(item, arrays, used)]));
}

/**
 * What {@link encodeState} stored, its Float64Arrays back in place.
 * @throws {TypeError} naming what is wrong when the bytes are not such a file: another format, damaged,
 * cut short or with bytes to spare, or written on a machine of the other byte order.
 */
export function decodeState(bytes: Buffer): unknown {
  if (bytes.length < MAGIC.length || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC)
    throw new TypeError(`Expected a state file of this redline (${JSON.stringify(MAGIC.trim())}), got another format`);
  const end = bytes.indexOf(10, MAGIC.length);
  if (end === -1) throw new TypeError('Expected a line of JSON after the format line, got a file cut short');
  const head = bytes.subarray(MAGIC.length, end);
  let header: unknown;
  try {
    header = JSON.parse(head.toString(isAscii(head) ? 'latin1' : 'utf8'));
  } catch (error) {
    throw new TypeError(`Expected a line of JSON after the format line: ${(error as Error).message}`, { cause: error });
  }
  if (!isPlainObject(header)) throw new TypeError('Expected the JSON line to be an object');
  if (header.endian !== os.endianness())
    throw new TypeError(`Expected a state file written on a ${os.endianness()} machine, got ${JSON.stringify(header.endian)}`);
  const counts = header.arrays;
  if (!Array.isArray(counts) || !counts.every((count) => typeof count === 'number' && Number.isSafeInteger(count) && count >= 0))
    throw new TypeError('Expected the stored arrays to be listed by their lengths');
  const start = end + 1;
  if (start % DOUBLE !== 0) throw new TypeError('Expected the stored arrays to start on an eight-byte boundary');
  const total = (counts as number[]).reduce((sum, count) => sum + count * DOUBLE, 0);
  if (bytes.length - start !== total)
    throw new TypeError(`Expected ${total} bytes of stored arrays after the JSON line, got ${bytes.length - start}`);
  const arrays: Float64Array[] = [];
  let at = start;
  for (const count of counts as number[]) {
    arrays.push(doubles(bytes, at, count));
    at += count * DOUBLE;
  }
  const used = new Set<number>();
  const value = resolved(header.value, arrays, used);
  if (used.size !== arrays.length)
    throw new TypeError(`Expected every stored array to be referenced, got ${arrays.length - used.size} not`);
  return value;
}

/** Writes `value` to `file` whole or not at all (a temp file renamed over it: a killed process leaves no half file). */
export function writeStateFile(file: string, value: object): void {
  writeFileSync(`${file}.partial`, encodeState(value));
  renameSync(`${file}.partial`, file);
}

/** What {@link writeStateFile} wrote to `file` (see {@link decodeState}; a file that cannot be read throws its error). */
export function readStateFile(file: string): unknown {
  return decodeState(readFileSync(file));
}
