import { closeSync, openSync, readSync, writeSync, ftruncateSync } from 'node:fs';

/** Where one blob sits in the pack. */
export interface BlobSlot {
  readonly offset: number;
  readonly size: number;
}

/**
 * Content-addressed blobs in one append-only file: a snapshot's bytes are written once, sequentially, and
 * identical files are stored once. Reads are positional, so restoring one file reads only that file.
 */
export class BlobPack {
  readonly file: string;
  readonly #fd: number;
  readonly #slots: Map<string, BlobSlot>;
  #end: number;
  /** Bytes of the blob being written (not committed yet). */
  #pending = 0;
  #closed = false;

  private constructor(file: string, fd: number, slots: Map<string, BlobSlot>, end: number) {
    this.file = file;
    this.#fd = fd;
    this.#slots = slots;
    this.#end = end;
  }

  /** A new, empty pack (an existing file is truncated). */
  static create(file: string): BlobPack {
    return new BlobPack(file, openSync(file, 'w+'), new Map(), 0);
  }

  /** A pack written earlier, with its index. */
  static open(file: string, slots: Iterable<readonly [string, BlobSlot]>): BlobPack {
    const index = new Map(slots);
    let end = 0;
    for (const slot of index.values()) end = Math.max(end, slot.offset + slot.size);
    return new BlobPack(file, openSync(file, 'r+'), index, end);
  }

  /** Appends bytes to the blob being written; `commit` names it, `discard` drops it (a duplicate). */
  append(bytes: Uint8Array, length = bytes.length): void {
    let written = 0;
    while (written < length) written += writeSync(this.#fd, bytes, written, length - written, this.#end + this.#pending + written);
    this.#pending += length;
  }

  commit(hash: string): void {
    if (!this.#slots.has(hash)) {
      this.#slots.set(hash, { offset: this.#end, size: this.#pending });
      this.#end += this.#pending;
    }
    this.#pending = 0;
  }

  /** The bytes of a blob; throws when the pack does not hold it or holds fewer bytes than recorded. */
  read(hash: string): Buffer {
    if (this.#closed) throw new Error(`the snapshot's pack ${this.file} is closed`);
    const slot = this.#slots.get(hash);
    if (slot === undefined) throw new Error(`the snapshot holds no blob ${hash}`);
    const bytes = Buffer.allocUnsafe(slot.size);
    let read = 0;
    while (read < slot.size) {
      const n = readSync(this.#fd, bytes, read, slot.size - read, slot.offset + read);
      if (n === 0) throw new Error(`the snapshot's pack ${this.file} is shorter than its index says`);
      read += n;
    }
    return bytes;
  }

  slots(): IterableIterator<[string, BlobSlot]> {
    return this.#slots.entries();
  }

  /** Drops bytes appended after the last committed blob, then closes the file. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    ftruncateSync(this.#fd, this.#end);
    closeSync(this.#fd);
  }
}
