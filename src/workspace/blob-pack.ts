import { closeSync, openSync, readSync, writeSync, ftruncateSync } from 'node:fs';

/** Where one blob sits in the pack. */
export interface BlobSlot {
  readonly offset: number;
  readonly size: number;
}

/** Bytes gathered before one write: a snapshot of many small files costs a few large writes. */
const WRITE_BUFFER = 8 * 1024 * 1024;

/**
 * Content-addressed blobs in one append-only file: a snapshot's bytes are written once, sequentially, and
 * identical files are stored once. Reads are positional, so restoring one file reads only that file.
 */
export class BlobPack {
  readonly file: string;
  readonly #fd: number;
  readonly #slots: Map<string, BlobSlot>;
  /** Where the committed blobs end. */
  #end: number;
  /** Bytes of the blob being written (not committed yet). */
  #pending = 0;
  /** Up to where the pack's bytes are in the file; the rest, up to `#end + #pending`, is in `#buffer`. */
  #flushed: number;
  #buffer: Buffer | undefined;
  #closed = false;
  /** Whether this pack wrote anything: a pack opened only to be read (a resumed run's, shared with a cache) is never truncated. */
  #wrote = false;

  private constructor(file: string, fd: number, slots: Map<string, BlobSlot>, end: number) {
    this.file = file;
    this.#fd = fd;
    this.#slots = slots;
    this.#end = end;
    this.#flushed = end;
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

  #write(bytes: Uint8Array, length: number, at: number): void {
    for (let written = 0; written < length;) written += writeSync(this.#fd, bytes, written, length - written, at + written);
  }

  /** Writes the buffered bytes to the file. */
  #flush(): void {
    const buffered = this.#end + this.#pending - this.#flushed;
    if (buffered > 0 && this.#buffer !== undefined) this.#write(this.#buffer, buffered, this.#flushed);
    this.#flushed = this.#end + this.#pending;
  }

  /** Appends bytes to the blob being written; `commit` names it (or drops it when the pack has it already). */
  append(bytes: Uint8Array, length = bytes.length): void {
    this.#wrote = true;
    const at = this.#end + this.#pending;
    if (at - this.#flushed + length > WRITE_BUFFER) this.#flush();
    if (length >= WRITE_BUFFER) {
      this.#write(bytes, length, at);
      this.#pending += length;
      this.#flushed = at + length;
      return;
    }
    this.#buffer ??= Buffer.allocUnsafe(WRITE_BUFFER);
    this.#buffer.set(bytes.subarray(0, length), at - this.#flushed);
    this.#pending += length;
  }

  commit(hash: string): void {
    if (!this.#slots.has(hash)) {
      this.#slots.set(hash, { offset: this.#end, size: this.#pending });
      this.#end += this.#pending;
    }
    this.#pending = 0;
    // A dropped duplicate may have reached the file already: the next blob is written over it.
    if (this.#flushed > this.#end) this.#flushed = this.#end;
  }

  /**
   * Makes room for a blob that another thread writes (see `CopyWriter`): its offset, or undefined when the
   * pack holds that content already. Not while a blob is being appended.
   */
  reserve(hash: string, size: number): number | undefined {
    if (this.#slots.has(hash)) return undefined;
    this.#wrote = true;
    this.#flush();
    const offset = this.#end;
    this.#slots.set(hash, { offset, size });
    this.#end += size;
    this.#flushed = this.#end;
    return offset;
  }

  /** The bytes of a blob; throws when the pack does not hold it or holds fewer bytes than recorded. */
  read(hash: string): Buffer {
    if (this.#closed) throw new Error(`the snapshot's pack ${this.file} is closed`);
    const slot = this.#slots.get(hash);
    if (slot === undefined) throw new Error(`the snapshot holds no blob ${hash}`);
    if (slot.offset + slot.size > this.#flushed) this.#flush();
    const bytes = Buffer.allocUnsafe(slot.size);
    let read = 0;
    while (read < slot.size) {
      const n = readSync(this.#fd, bytes, read, slot.size - read, slot.offset + read);
      if (n === 0) throw new Error(`the snapshot's pack ${this.file} is shorter than its index says`);
      read += n;
    }
    return bytes;
  }

  /** The bytes of a blob in pieces of at most `size` bytes, read as they are asked for: a large blob never whole in memory. */
  *chunks(hash: string, size: number): Generator<Buffer> {
    const slot = this.#slots.get(hash);
    if (slot === undefined) throw new Error(`the snapshot holds no blob ${hash}`);
    for (let at = 0; at < slot.size;) {
      if (this.#closed) throw new Error(`the snapshot's pack ${this.file} is closed`);
      if (slot.offset + slot.size > this.#flushed) this.#flush();
      const bytes = Buffer.allocUnsafe(Math.min(size, slot.size - at));
      let read = 0;
      while (read < bytes.length) {
        const n = readSync(this.#fd, bytes, read, bytes.length - read, slot.offset + at + read);
        if (n === 0) throw new Error(`the snapshot's pack ${this.file} is shorter than its index says`);
        read += n;
      }
      at += read;
      yield bytes;
    }
  }

  /** Writes what is buffered: call before the pack's index is saved for another process. */
  sync(): void {
    this.#flush();
  }

  /** Whether the pack holds a blob of that content. */
  has(hash: string): boolean {
    return this.#slots.has(hash);
  }

  /** Where the committed blobs end: the pack's size once closed. */
  get size(): number {
    return this.#end;
  }

  slots(): IterableIterator<[string, BlobSlot]> {
    return this.#slots.entries();
  }

  /** Drops bytes appended after the last committed blob, then closes the file. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = 0;
    this.#flush();
    this.#buffer = undefined;
    if (this.#wrote) ftruncateSync(this.#fd, this.#end);
    closeSync(this.#fd);
  }
}
