import { Worker } from 'node:worker_threads';
import type { Stamp } from './stamp.js';

/** Bytes gathered before a batch goes to the writer thread (more than the snapshot's read buffer). */
const BATCH_BYTES = 4 * 1024 * 1024;
/** Files gathered before a batch goes (many small files). */
const BATCH_FILES = 512;
/** Batches in flight before the reader waits: bounds the memory held. */
const IN_FLIGHT = 4;

/**
 * The writer thread: creates each file of a batch (exclusively, with its mode, set exactly when the umask
 * would strip bits), writes its bytes and answers with the new file's stamp. Plain JavaScript, evaluated
 * as the thread's source, so it runs the same from the sources and from the build.
 */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL;
parentPort.on('message', ({ id, files, data, umask, pack }) => {
  const bytes = Buffer.from(data);
  const stamps = [];
  let packFd;
  // New blobs sit side by side in the batch and in the pack (reserved in order): one write per run of them.
  let run;
  const flushRun = () => {
    if (run === undefined) return;
    packFd ??= fs.openSync(pack, 'r+');
    for (let done = 0; done < run.length; ) done += fs.writeSync(packFd, bytes, run.offset + done, run.length - done, run.at + done);
    run = undefined;
  };
  try {
    for (const { target, file, mode, offset, length, packOffset } of files) {
      if (packOffset !== undefined) {
        if (run !== undefined && run.at + run.length === packOffset && run.offset + run.length === offset) run.length += length;
        else {
          flushRun();
          run = { at: packOffset, offset, length };
        }
      }
      const fd = fs.openSync(target, flags, mode);
      try {
        if ((mode & umask) !== 0) fs.fchmodSync(fd, mode);
        for (let done = 0; done < length; ) done += fs.writeSync(fd, bytes, offset + done, length - done);
        const info = fs.fstatSync(fd);
        const kind = info.isFile() ? 'file' : 'other';
        stamps.push([file, { kind, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, mode: info.mode & 0o7777 }]);
      } finally {
        fs.closeSync(fd);
      }
    }
    flushRun();
    parentPort.postMessage({ id, stamps });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  } finally {
    if (packFd !== undefined) fs.closeSync(packFd);
  }
});
`;

interface Pending {
  readonly target: string;
  readonly file: string;
  readonly mode: number;
  readonly offset: number;
  readonly length: number;
  /** Where the bytes go in the blob pack too, when they are new to it. */
  readonly packOffset?: number;
}

/**
 * Writes a copy's small files, and their new blobs into the pack, on a second thread while the snapshot
 * goes on reading and hashing on the first: the writes are most of what a snapshot costs, and the two
 * halves then overlap.
 */
export class CopyWriter {
  readonly #worker: Worker;
  readonly #umask: number;
  readonly #stamps: Map<string, Stamp>;
  readonly #pack: string;
  /** Who waits for which batch's answer. */
  readonly #waiting = new Map<number, () => void>();
  /** Batches sent and not answered, oldest first. */
  readonly #inFlight: Promise<void>[] = [];
  #batch: Pending[] = [];
  /** The batch being gathered, in a buffer of its own that moves to the thread whole (no copy). */
  #data = Buffer.allocUnsafeSlow(BATCH_BYTES);
  #used = 0;
  #next = 0;
  #error: Error | undefined;

  /**
   * @param pack the blob pack's file, which blobs reserved in it are written to.
   * @param stamps where the stamps of the written files go, by path.
   */
  constructor({ umask, pack, stamps }: { umask: number; pack: string; stamps: Map<string, Stamp> }) {
    this.#umask = umask;
    this.#pack = pack;
    this.#stamps = stamps;
    this.#worker = new Worker(SOURCE, { eval: true });
    this.#worker.on('message', ({ id, stamps: written, error }: { id: number; stamps?: [string, Stamp][]; error?: string }) => {
      if (error !== undefined) this.#error ??= new Error(`writing the copy failed: ${error}`);
      for (const [file, stamp] of written ?? []) this.#stamps.set(file, stamp);
      this.#waiting.get(id)?.();
      this.#waiting.delete(id);
    });
    this.#worker.on('error', (error) => {
      this.#error ??= error;
      for (const wake of this.#waiting.values()) wake();
      this.#waiting.clear();
    });
  }

  /** Queues a file (its bytes are copied now); waits when too many batches are in flight. */
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
    if (this.#used + bytes.length > BATCH_BYTES) await this.#send();
    this.#data.set(bytes, this.#used);
    this.#batch.push({ target, file, mode, offset: this.#used, length: bytes.length, ...(packOffset === undefined ? {} : { packOffset }) });
    this.#used += bytes.length;
    if (this.#batch.length >= BATCH_FILES) await this.#send();
  }

  async #send(): Promise<void> {
    if (this.#batch.length === 0) return;
    const id = this.#next;
    this.#next += 1;
    const { buffer: data } = this.#data;
    this.#inFlight.push(new Promise<void>((resolve) => this.#waiting.set(id, resolve)));
    this.#worker.postMessage({ id, files: this.#batch, data, umask: this.#umask, pack: this.#pack }, [data]);
    this.#data = Buffer.allocUnsafeSlow(BATCH_BYTES);
    this.#batch = [];
    this.#used = 0;
    if (this.#inFlight.length >= IN_FLIGHT) await this.#inFlight.shift();
  }

  /** Sends what is queued, waits until every file is written, and stops the thread. */
  async finish(): Promise<void> {
    try {
      await this.#send();
      await Promise.all(this.#inFlight.splice(0));
      if (this.#error !== undefined) throw this.#error;
    } finally {
      await this.#worker.terminate();
    }
  }
}
