import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { Stamp } from './stamp.js';

/** Bytes gathered before a batch goes to the writer thread (more than the snapshot's read buffer); a larger file is written by the caller. */
const BATCH_BYTES = 4 * 1024 * 1024;
/** Files gathered before a batch goes (many small files). */
const BATCH_FILES = 512;
/** Batches in flight before the reader waits: bounds the memory held. */
const IN_FLIGHT = 4;

/** A file of a batch: where it goes, its mode, and where its bytes are in the batch (and in the pack). */
interface BatchFile {
  readonly target: string;
  readonly file: string;
  readonly mode: number;
  readonly offset: number;
  readonly length: number;
  /** Where the bytes go in the blob pack too, when they are new to it. */
  readonly packOffset?: number;
}

/** A batch as it goes to the writer: its files, the buffer holding their bytes, the umask and the pack's file. */
interface Batch {
  readonly files: readonly BatchFile[];
  readonly data: ArrayBuffer;
  readonly umask: number;
  readonly pack: string | undefined;
}

/**
 * The body of `writeBatch(io, batch)`: creates each file of a batch (exclusively, with its mode, set exactly
 * when the umask would strip bits), writes its bytes, and returns the new files' stamps. Plain JavaScript
 * that uses nothing but its arguments (`io` is `node:fs`): the writer thread runs it, from the sources as
 * from the build, and so does a copy too small to need the thread.
 */
const WRITE_BATCH = `
const { files, data, umask, pack } = batch;
const flags = io.constants.O_WRONLY | io.constants.O_CREAT | io.constants.O_EXCL;
const bytes = Buffer.from(data);
const stamps = [];
let packFd;
// New blobs sit side by side in the batch and in the pack (reserved in order): one write per run of them.
let run;
function flushRun() {
  if (run === undefined) return;
  packFd ??= io.openSync(pack, 'r+');
  for (let done = 0; done < run.length; ) done += io.writeSync(packFd, bytes, run.offset + done, run.length - done, run.at + done);
  run = undefined;
}
try {
  for (const { target, file, mode, offset, length, packOffset } of files) {
    if (packOffset !== undefined) {
      if (run !== undefined && run.at + run.length === packOffset && run.offset + run.length === offset) run.length += length;
      else {
        flushRun();
        run = { at: packOffset, offset, length };
      }
    }
    const fd = io.openSync(target, flags, mode);
    try {
      if ((mode & umask) !== 0) io.fchmodSync(fd, mode);
      for (let done = 0; done < length; ) done += io.writeSync(fd, bytes, offset + done, length - done);
      const info = io.fstatSync(fd);
      const kind = info.isFile() ? 'file' : 'other';
      stamps.push([file, { kind, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, mode: info.mode & 0o7777 }]);
    } finally {
      io.closeSync(fd);
    }
  }
  flushRun();
  return stamps;
} finally {
  if (packFd !== undefined) io.closeSync(packFd);
}
`;

// A constant of this module, never input: the one body both writers run.
const writeBatch = new Function('io', 'batch', WRITE_BATCH) as (io: typeof fs, batch: Batch) => [string, Stamp][];

/** The writer thread's source: `writeBatch` for each batch it is sent, answering with the stamps or the error. */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
function writeBatch(io, batch) {${WRITE_BATCH}}
parentPort.on('message', ({ id, ...batch }) => {
  try {
    parentPort.postMessage({ id, stamps: writeBatch(fs, batch) });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

/** Why the copy could not be written, as the thread and the in-place writer both say it. */
const writeFailed = (error: unknown): Error =>
  new Error(`writing the copy failed: ${error instanceof Error ? error.message : String(error)}`);

/**
 * Writes a copy's small files, and their new blobs into the pack, on a second thread while the first goes
 * on reading: the snapshot reading and hashing the workspace, or a copy written from the pack reading and
 * checking its blobs. The writes are most of what a large copy costs, and the two halves then overlap. The
 * thread starts with the first full batch: a copy whose small files fit in one batch writes them in place
 * when it finishes, sparing the thread's start (tens of milliseconds of CPU, more than such a copy's writes).
 */
export class CopyWriter {
  #worker: Worker | undefined;
  readonly #umask: number;
  readonly #stamps: Map<string, Stamp>;
  readonly #pack: string | undefined;
  /** Who waits for which batch's answer. */
  readonly #waiting = new Map<number, () => void>();
  /** Batches sent and not answered, oldest first. */
  readonly #inFlight: Promise<void>[] = [];
  #batch: BatchFile[] = [];
  /** The batch being gathered, in a buffer of its own that moves to the thread whole (no copy). */
  #data = Buffer.allocUnsafeSlow(BATCH_BYTES);
  #used = 0;
  #next = 0;
  #error: Error | undefined;

  /**
   * @param pack the blob pack's file, which blobs reserved in it are written to (none: no file comes with a `packOffset`).
   * @param stamps where the stamps of the written files go, by path.
   */
  constructor({ umask, pack, stamps }: { umask: number; pack?: string; stamps: Map<string, Stamp> }) {
    this.#umask = umask;
    this.#pack = pack;
    this.#stamps = stamps;
  }

  /** The writer thread, started on first need. */
  #thread(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(SOURCE, { eval: true });
    worker.on('message', ({ id, stamps: written, error }: { id: number; stamps?: [string, Stamp][]; error?: string }) => {
      if (error !== undefined) this.#error ??= new Error(`writing the copy failed: ${error}`);
      for (const [file, stamp] of written ?? []) this.#stamps.set(file, stamp);
      this.#waiting.get(id)?.();
      this.#waiting.delete(id);
    });
    worker.on('error', (error) => this.#stopped(error));
    // A thread gone (terminated, or its error above) answers nothing more: whoever waits is woken, and nothing more is sent to it.
    worker.on('exit', (code) => this.#stopped(new Error(`writing the copy failed: its thread exited (code ${code})`)));
    this.#worker = worker;
    return worker;
  }

  /** The thread answers no more: the first reason is kept and every caller waiting is woken. */
  #stopped(error: Error): void {
    this.#error ??= error;
    for (const wake of this.#waiting.values()) wake();
    this.#waiting.clear();
  }

  /**
   * Queues a file (its bytes are copied now); waits when too many batches are in flight. A file larger than
   * a batch is written here and now, from its own bytes.
   */
  async write({
    target,
    file,
    bytes,
    mode,
    packOffset,
  }: {
    target: string;
    file: string;
    bytes: Uint8Array;
    mode: number;
    packOffset?: number;
  }): Promise<void> {
    if (this.#error !== undefined) throw this.#error;
    const pack = packOffset === undefined ? {} : { packOffset };
    if (bytes.length > BATCH_BYTES) {
      const alone = {
        files: [{ target, file, mode, offset: bytes.byteOffset, length: bytes.length, ...pack }],
        data: bytes.buffer as ArrayBuffer,
      };
      this.#writeHere(alone);
      if (this.#error !== undefined) throw this.#error;
      return;
    }
    if (this.#used + bytes.length > BATCH_BYTES) await this.#send();
    this.#data.set(bytes, this.#used);
    this.#batch.push({ target, file, mode, offset: this.#used, length: bytes.length, ...pack });
    this.#used += bytes.length;
    if (this.#batch.length >= BATCH_FILES) await this.#send();
  }

  async #send(): Promise<void> {
    if (this.#batch.length === 0) return;
    if (this.#error !== undefined) throw this.#error;
    const id = this.#next;
    this.#next += 1;
    const { buffer: data } = this.#data;
    this.#inFlight.push(new Promise<void>((resolve) => this.#waiting.set(id, resolve)));
    this.#thread().postMessage({ id, files: this.#batch, data, umask: this.#umask, pack: this.#pack }, [data]);
    this.#data = Buffer.allocUnsafeSlow(BATCH_BYTES);
    this.#batch = [];
    this.#used = 0;
    if (this.#inFlight.length >= IN_FLIGHT) await this.#inFlight.shift();
  }

  /** Writes what is queued (in place, when no batch went to the thread), waits until every file is written, and stops the thread. */
  async finish(): Promise<void> {
    try {
      if (this.#worker === undefined && this.#error === undefined) this.#writeInPlace();
      else await this.#send();
      await Promise.all(this.#inFlight.splice(0));
      if (this.#error !== undefined) throw this.#error;
    } finally {
      await this.#worker?.terminate();
    }
  }

  #writeInPlace(): void {
    if (this.#batch.length === 0) return;
    const batch = { files: this.#batch, data: this.#data.buffer };
    this.#batch = [];
    this.#used = 0;
    this.#writeHere(batch);
  }

  /** Writes a batch on this thread, its stamps going where the thread's go. */
  #writeHere({ files, data }: Pick<Batch, 'files' | 'data'>): void {
    try {
      for (const [file, stamp] of writeBatch(fs, { files, data, umask: this.#umask, pack: this.#pack })) this.#stamps.set(file, stamp);
    } catch (error) {
      this.#error ??= writeFailed(error);
    }
  }
}
