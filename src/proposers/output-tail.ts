import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { OutputTail } from '../core/proposer-account.js';

/** Bytes kept of a proposer program's stdout and of its stderr, each. */
export const STREAM_TAIL_BYTES = 16_384;
/** Bytes kept of the transcript an agent writes to `$REDLINE_TRANSCRIPT`. */
export const TRANSCRIPT_TAIL_BYTES = 65_536;

/** Whether a byte continues a UTF-8 character (`10xxxxxx`): a cut there would split the character. */
const continues = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80;

/** The last bytes of `bytes` (at most `cap`, minus a partial character at the start), and how many came before. */
function tailBytes(bytes: Buffer, cap: number, before = 0): OutputTail {
  let start = Math.max(0, bytes.length - cap);
  // Only a cut can land inside a character: text kept from its first byte starts on a boundary.
  if (start + before > 0) while (start < bytes.length && continues(bytes[start])) start += 1;
  return { text: bytes.subarray(start).toString('utf8'), droppedBytes: before + start };
}

/**
 * The last `cap` bytes of `text` in UTF-8, cut on a character boundary, with the bytes dropped before them.
 * @example
 * tailOf('a'.repeat(20_000), 16_384) // { text: 'aaa…' (16,384 of them), droppedBytes: 3616 }
 */
export function tailOf(text: string, cap: number): OutputTail {
  if (!Number.isInteger(cap) || cap < 0) throw new TypeError(`Expected \`cap\` to be a non-negative integer, got ${cap}`);
  return tailBytes(Buffer.from(text, 'utf8'), cap);
}

/**
 * The last `cap` bytes of a regular file, read without reading the rest; undefined when there is no such
 * file, or it is not a regular file. A symlink is not followed and a FIFO does not block: an agent that
 * put either there cannot make redline read something else, or wait.
 */
export async function readTail(file: string, cap: number): Promise<OutputTail | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const { size } = info;
    const length = Math.min(size, cap);
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, size - length);
    return tailBytes(bytes.subarray(0, bytesRead), cap, size - length);
  } finally {
    await handle.close();
  }
}
