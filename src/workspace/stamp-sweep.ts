import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { pathIn } from './path-in.js';
import { sameStamp, stampAt, stampsThroughBinding, type Stamp } from './stamp.js';
import { putStampNumbers, STAMP_WIDTH } from './state-columns.js';

/** Fewer paths than this are stamped by the walk itself: the second thread's start and messages would cost more. */
const MIN_PATHS = 2048;
/** `lstat` calls of this thread between two turns of the event loop (as the walks take them). */
const BATCH = 4096;
/** Folders {@link sweptLookup} passes over, at most, looking for the next path asked after the last one. */
const FOLDERS_PASSED = 64;
/** Paths per share of a sweep: each thread takes shares until none is left. */
const SHARE = 256;
/** A share's state in a sweep's claims: free, taken by this thread, taken by the second, done by the second. */
const FREE = 0;
const MINE = 1;
const DONE = 3;

/**
 * The second thread: for each request (a folder, paths in it and the stamps they had, six numbers each as
 * `stampColumns` lays them out, in shared memory), takes shares of the paths from the last one down, each
 * only while it is still free (this thread takes them from the first one up, so the two meet somewhere),
 * and for each path of its shares sets one byte, 1 where `lstat` gives exactly that stamp now, computed as
 * `stampAt` computes a stamp from Node's `lstat` binding; 0 where it differs, nothing is there, or `lstat`
 * failed. A share is marked done once its bytes are set; the thread says when it took none more. A request
 * without paths (null) is for the paths the request `pathsOf` carried, which must be the last it read.
 * Before its first answer it checks, on paths that exist, that the binding gives what `fs.lstatSync` gives,
 * and says `unavailable` (and answers nothing) where it does not or there is no binding. It says so also in
 * the shared cell it was given (1 ready, 2 unavailable), which this thread reads without waiting for a turn
 * of its event loop (a long synchronous step, such as reading a large state file, would hold the message back).
 */
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const S_IFMT = 0o170000;
const CODES = new Map([[0o100000, 0], [0o040000, 1], [0o120000, 2]]);
let lstat;
try {
  const binding = process.binding('fs');
  if (typeof binding.lstat === 'function') lstat = (target) => binding.lstat(target, false, undefined, false);
} catch {}
function same(values, expected, at) {
  const mode = values[1];
  return (CODES.get(mode & S_IFMT) ?? 3) === expected[at] && values[7] === expected[at + 1] && values[8] === expected[at + 2] &&
    values[12] * 1e3 + values[13] / 1e6 === expected[at + 3] && values[14] * 1e3 + values[15] / 1e6 === expected[at + 4] &&
    (mode & 0o7777) === expected[at + 5];
}
if (lstat !== undefined) {
  try {
    for (const file of [process.execPath, path.dirname(process.execPath), '/proc/self/exe'].filter((file) => fs.existsSync(file))) {
      const info = fs.lstatSync(file);
      const kind = info.isFile() ? 0 : info.isDirectory() ? 1 : info.isSymbolicLink() ? 2 : 3;
      const values = lstat(file);
      if (!values || !same(values, [kind, info.ino, info.size, info.mtimeMs, info.ctimeMs, info.mode & 0o7777], 0)) lstat = undefined;
    }
    if (lstat !== undefined && lstat(path.join(path.dirname(process.execPath), '.redline-no-such-entry')) !== undefined) lstat = undefined;
  } catch {
    lstat = undefined;
  }
}
Atomics.store(workerData, 0, lstat === undefined ? 2 : 1);
parentPort.postMessage(lstat === undefined ? { unavailable: true } : { ready: true });
let known = [];
let knownFrom = -1;
// A request that could not be read is said to be lost: the paths it may have carried are not known then.
parentPort.on('messageerror', () => {
  knownFrom = -1;
  parentPort.postMessage({ lost: true });
});
parentPort.on('message', ({ id, dir, paths: given, pathsOf, expected, claims, found, share }) => {
  if (given !== null) {
    known = given;
    knownFrom = id;
  } else if (pathsOf !== knownFrom) {
    // Not the paths it meant: no share taken, this thread does them all.
    parentPort.postMessage({ id });
    return;
  }
  const paths = known;
  for (let taken = claims.length - 1; taken >= 0; taken--) {
    if (Atomics.compareExchange(claims, taken, ${FREE}, 2) !== ${FREE}) break;
    const end = Math.min(paths.length, (taken + 1) * share);
    for (let index = taken * share; index < end; index++) {
      const file = paths[index];
      if (file.includes('\\0')) continue;
      try {
        const values = lstat(file === '' ? dir : dir + '/' + file);
        if (values !== undefined && same(values, expected, index * ${STAMP_WIDTH})) found[index] = 1;
      } catch {}
    }
    Atomics.store(claims, taken, ${DONE});
  }
  parentPort.postMessage({ id });
});
`;

/** The second thread, started on first need and kept (not keeping the process alive) while it answers. */
class Sweeper {
  #worker: Worker | undefined;
  #state: 'starting' | 'ready' | 'off' = 'starting';
  /** What the thread says of itself as soon as it knows: 0 not yet, 1 ready, 2 unavailable. */
  readonly #said = new Int32Array(new SharedArrayBuffer(4));
  readonly #waiting = new Map<number, (finished: boolean) => void>();
  /**
   * The paths the thread was last handed, and the request that carried them: a sweep of the same paths (the
   * copies and the workspace have them all) does not send them again.
   */
  #sent: { readonly id: number; readonly paths: readonly string[] } | undefined;
  #next = 0;

  /** The thread when it is ready to answer; else undefined (and it is started, unless it failed). */
  ready(): Worker | undefined {
    if (this.#state === 'off') return undefined;
    // Where this thread does not stamp through the binding (another Node.js, --pending-deprecation), neither does a second one.
    if (this.#worker === undefined && !stampsThroughBinding()) {
      this.#state = 'off';
      return undefined;
    }
    if (this.#worker === undefined) this.#start();
    if (this.#state === 'starting') {
      const said = Atomics.load(this.#said, 0);
      if (said === 1) this.#state = 'ready';
      else if (said === 2) this.#stop();
    }
    return this.#state === 'ready' ? this.#worker : undefined;
  }

  #start(): void {
    try {
      const worker = new Worker(SOURCE, { eval: true, workerData: this.#said });
      worker.unref();
      worker.on('message', (message: { ready?: true; unavailable?: true; lost?: true; id?: number }) => {
        if (message.ready === true) {
          if (this.#state === 'starting') this.#state = 'ready';
        } else if (message.unavailable === true) this.#stop();
        else if (message.lost === true) this.#lost();
        else if (message.id !== undefined) {
          this.#waiting.get(message.id)?.(true);
          this.#waiting.delete(message.id);
        }
      });
      worker.on('error', () => this.#stop());
      worker.on('exit', () => this.#stop());
      this.#worker = worker;
    } catch {
      this.#state = 'off';
    }
  }

  #stop(): void {
    this.#state = 'off';
    this.#giveUpWaiting();
    void this.#worker?.terminate();
  }

  /** A request the thread could not read: no answer will come for it, and its paths are not known there. */
  #lost(): void {
    this.#sent = undefined;
    this.#giveUpWaiting();
  }

  /** Every sweep waiting for the thread goes on without it (its unfinished shares count as not found). */
  #giveUpWaiting(): void {
    for (const wake of this.#waiting.values()) wake(false);
    this.#waiting.clear();
  }

  /** Hands the thread a sweep: true once it took no more shares of it, false when it stopped or could not be asked. */
  ask(worker: Worker, request: SweepRequest): Promise<boolean> {
    const id = this.#next;
    this.#next += 1;
    const answer = new Promise<boolean>((resolve) => this.#waiting.set(id, resolve));
    // Kept alive while an answer is awaited, so that the process does not end under a pending walk.
    worker.ref();
    const sent = this.#sent !== undefined && sameList(this.#sent.paths, request.paths) ? this.#sent : undefined;
    try {
      worker.postMessage({ id, ...request, paths: sent === undefined ? request.paths : null, pathsOf: sent?.id ?? id });
      this.#sent = sent ?? { id, paths: request.paths };
    } catch {
      this.#sent = undefined;
      this.#waiting.get(id)?.(false);
      this.#waiting.delete(id);
    }
    return answer.finally(() => {
      if (this.#waiting.size === 0) worker.unref();
    });
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/** What the second thread is handed for one sweep: the paths, and shared memory for the rest. */
interface SweepRequest {
  readonly dir: string;
  readonly paths: readonly string[];
  /** Six numbers per path, as `stampColumns` lays them out. */
  readonly expected: Float64Array;
  /** Per share: FREE, MINE, 2 (the second thread's) or DONE. */
  readonly claims: Int32Array;
  /** Per path: 1 where the thread that took its share found it unchanged. */
  readonly found: Uint8Array;
  readonly share: number;
}

const sweeper = new Sweeper();

/** Starts the second thread ahead of the walks of a copy of `paths` paths, when they will use it. */
export function warmSweep(paths: number): void {
  if (paths >= MIN_PATHS) sweeper.ready();
}

/** What {@link unchangedAt} found: which of the paths it swept still had exactly the stamps it compared. */
export interface Swept {
  readonly files: readonly string[];
  readonly stamps: readonly Stamp[];
  /** 1 where the path had exactly that stamp, 0 where it was changed, gone or unreadable. */
  readonly same: Uint8Array;
}

/**
 * Whether the walk may take `stamp` as the stamp of `file` now: the sweep found it unchanged, and it is the
 * very path and stamp the sweep compared at that place of the map (a map changed since is stamped again).
 */
export function sweptUnchanged(swept: Swept | undefined, index: number, file: string, stamp: Stamp): boolean {
  return swept !== undefined && swept.same[index] === 1 && swept.files[index] === file && swept.stamps[index] === stamp;
}

/**
 * {@link sweptUnchanged} asked by path, for a walk that meets the swept paths in its own order: the path
 * after the last one asked is tried first (a walk of an unchanged tree meets them in the map's order),
 * any other through an index by path made on first need.
 */
export function sweptLookup(swept: Swept | undefined): (file: string, stamp: Stamp) => boolean {
  if (swept === undefined) return () => false;
  let next = 0;
  let byPath: Map<string, number> | undefined;
  return (file, stamp) => {
    let index = next;
    // A walk that asks of files only passes over the folders between them.
    for (let skipped = 0; swept.files[index] !== file && swept.stamps[index]?.kind === 'dir' && skipped < FOLDERS_PASSED; skipped++)
      index += 1;
    if (swept.files[index] !== file) {
      byPath ??= new Map(swept.files.map((name, at) => [name, at]));
      const found = byPath.get(file);
      if (found === undefined) return false;
      index = found;
    }
    next = index + 1;
    return sweptUnchanged(swept, index, file, stamp);
  };
}

/**
 * Which paths of `dir` still have exactly the stamps in `stamps` (see {@link sweptUnchanged}), with the
 * `lstat` calls of a large walk shared between this thread and a second one: each takes shares of the paths
 * while any is left (this one from the first up, the other from the last down), so that a thread slowed by
 * anything else does less. Undefined for a small walk, or where the second thread is not ready or not
 * available (the walk then stamps each path itself). A path not found unchanged is only one the walk must
 * stamp itself: one whose share the second thread took but did not finish counts as such.
 */
export async function unchangedAt(dir: string, stamps: ReadonlyMap<string, Stamp>): Promise<Swept | undefined> {
  if (stamps.size < MIN_PATHS) return undefined;
  const worker = sweeper.ready();
  if (worker === undefined) return undefined;
  const files = [...stamps.keys()];
  const swept = [...stamps.values()];
  const shares = Math.ceil(files.length / SHARE);
  // Stamps are numbers throughout: made by stampOf, or read back and checked by stampsFrom.
  const expected = new Float64Array(new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * STAMP_WIDTH * files.length));
  putStampNumbers(swept, expected);
  const claims = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * shares));
  const found = new Uint8Array(new SharedArrayBuffer(files.length));
  const finished = sweeper.ask(worker, { dir, paths: files, expected, claims, found, share: SHARE });
  let share = 0;
  let stamped = 0;
  for (; share < shares; share++) {
    if (Atomics.compareExchange(claims, share, FREE, MINE) !== FREE) break;
    const end = Math.min(files.length, (share + 1) * SHARE);
    for (let index = share * SHARE; index < end; index++) {
      try {
        const now = stampAt(pathIn(dir, files[index] as string));
        if (now !== undefined && sameStamp(now, swept[index] as Stamp)) found[index] = 1;
      } catch {
        // Stamped again by the walk, which reports what is wrong.
      }
    }
    stamped += end - share * SHARE;
    if (stamped >= BATCH) {
      stamped = 0;
      await yieldToLoop();
    }
  }
  // The rest was taken by the second thread: its bytes count once it marked their share done.
  if (share < shares) await finished;
  const same = new Uint8Array(files.length);
  for (let index = 0; index < shares; index++) {
    const state = Atomics.load(claims, index);
    if (state === MINE || state === DONE)
      same.set(found.subarray(index * SHARE, Math.min(files.length, (index + 1) * SHARE)), index * SHARE);
  }
  return { files, stamps: swept, same };
}
